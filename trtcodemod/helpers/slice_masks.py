"""A mask of the positions a loop of slice writes with per-element bounds covers (TRT735).

``for b in range(x.size(0)): for t in range(x.size(2)): x[b, :lo[b, t], t] = v`` writes, along one axis, the
positions below a bound read from a tensor for each element of the looped axes. Traced, the loops unroll with the
example's sizes and every bound becomes a constant; the mask below covers the same positions at once, with
Python's slice rules (a negative bound counts from the end, bounds are clamped to the axis).
"""

import torch


def _trt_slice_bound_mask(x, axis, looped, counts, start, stop):
    # type: (Tensor, int, List[int], List[int], Optional[Tensor], Optional[Tensor]) -> Tensor
    """True where ``x[i..., start[i...]:stop[i...], ...]`` reaches, for every index ``i...`` of the ``looped``
    axes below the loops' ``counts`` (in order; ``start``/``stop`` indexed by them in that order, None for an open
    end) and every position of the other axes; ``axis`` is the sliced one."""
    size = x.shape[axis]
    position = torch.arange(size, device=x.device).reshape([-1 if d == axis else 1 for d in range(x.dim())])
    inside = torch.ones([1] * x.dim(), dtype=torch.bool, device=x.device)
    for k in range(len(looped)):
        # The loops reach the first `counts[k]` indices of their axis only.
        row = torch.arange(x.shape[looped[k]], device=x.device)
        inside = inside & (row < counts[k]).reshape([-1 if d == looped[k] else 1 for d in range(x.dim())])
    if start is not None:
        inside = inside & (position >= _trt_slice_bound_positions(x, looped, counts, start, size))
    if stop is not None:
        inside = inside & (position < _trt_slice_bound_positions(x, looped, counts, stop, size))
    return inside


def _trt_slice_bound_positions(x, looped, counts, bound, size):
    # type: (Tensor, List[int], List[int], Tensor, int) -> Tensor
    """The bounds the loops read (of the first ``counts[k]`` elements along each looped axis), placed on ``x``'s
    axes (rows past a count padded with 0: the mask leaves them out anyway), as the positions Python's slice takes:
    a negative bound counts from the end, and both are clamped to the axis."""
    bound = torch.as_tensor(bound, device=x.device)
    for k in range(len(looped)):
        bound = bound.narrow(k, 0, counts[k])
        pad = [0, 0] * (bound.dim() - k - 1) + [0, x.shape[looped[k]] - counts[k]]
        bound = torch.nn.functional.pad(bound, pad)
    bound = bound.reshape([x.shape[d] if d in looped else 1 for d in range(x.dim())])
    return torch.where(bound < 0, bound + size, bound).clamp(0, size)
