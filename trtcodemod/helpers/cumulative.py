"""``torch.cummax`` / ``torch.cummin`` exported as a masked extreme over a triangle, and an integer
``torch.cumsum`` exported as a float32 sum.

The TorchScript exporter has no symbolic for ``aten::cummax`` or ``aten::cummin`` (torch 2.13, any
opset): the export fails. The running extreme at position ``i`` is the extreme over positions
``j <= i``: compare every position with every earlier one (a lower triangle), take ``amax``
(``amin``) over it, and as the index the last earlier position that holds that value, which is
the one torch returns among equal values; the values are the input at those indices. torch's own
loop takes a NaN whenever it meets one and keeps it: with a NaN at or before ``i`` the index is the
last such NaN. Bool and 8- or 16-bit integers are compared as ``int32``: ONNX reduces neither bool
nor int16, TensorRT none of the three.
``_trt_cummax`` / ``_trt_cummin`` are the torch functions themselves everywhere except inside
``torch.onnx.export``.

TensorRT's CumSum takes FP32/FP16/BF16 only, and torch exports a cumulative sum of a bool or
integer tensor as a CumSum of that type (ONNX Runtime does not even load a bool one).
``_trt_cumsum`` is ``torch.cumsum`` except inside ``torch.onnx.export``, where an int32 or int64
result (a bool or integer input, or ``dtype=`` an int32/int64) is summed in float32 and cast back:
exact while every element and partial sum is an integer of magnitude at most ``2**24``.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_cummax(x, dim: int):
    """``torch.cummax(x, dim)``; while exporting, the same values and indices from a triangle of
    comparisons (``n * n`` booleans per row: for short axes, as token ids)."""
    if torch.jit.is_scripting():
        return torch.cummax(x, dim)
    if _trt_onnx_exporting() and _trt_ordered_tensor(x, dim):
        return torch.return_types.cummax(_trt_running_extreme(x, dim, True))
    return torch.cummax(x, dim)


def _trt_cummin(x, dim: int):
    """``torch.cummin(x, dim)``; while exporting, as :func:`_trt_cummax`."""
    if torch.jit.is_scripting():
        return torch.cummin(x, dim)
    if _trt_onnx_exporting() and _trt_ordered_tensor(x, dim):
        return torch.return_types.cummin(_trt_running_extreme(x, dim, False))
    return torch.cummin(x, dim)


def _trt_ordered_tensor(x, dim: int) -> bool:
    """A tensor of ordered elements (not complex) with ``dim`` one of its axes: the inputs the
    triangle takes (others keep torch's function and its error)."""
    return isinstance(x, torch.Tensor) and x.dim() > 0 and -x.dim() <= dim < x.dim() and not x.is_complex()


@torch.jit.unused
def _trt_running_extreme(x, dim: int, largest: bool):
    """Values and indices of the running max (min) along ``dim`` (never runs when scripted)."""
    axis, last = dim % x.dim(), x.dim() - 1
    # Positive axes: the TorchScript exporter writes ``movedim(-1, ...)`` as a Transpose with a -1 in perm.
    moved = x if axis == last else x.movedim(axis, last)
    keys = moved.to(torch.int32) if moved.dtype in (torch.bool, torch.uint8, torch.int8, torch.int16) else moved
    n = keys.shape[-1]
    position = torch.arange(n, device=x.device)
    earlier = position.unsqueeze(0) <= position.unsqueeze(1)  # [i, j]: j <= i
    rows = keys.unsqueeze(-2).expand(*keys.shape[:-1], n, n)
    none = torch.full((), -1, dtype=torch.int64, device=x.device)
    if keys.is_floating_point():
        nan = torch.isnan(rows)
        candidates = earlier & ~nan
        bound = float("-inf") if largest else float("inf")
    else:
        nan, candidates = None, earlier
        info = torch.iinfo(keys.dtype)
        bound = info.min if largest else info.max
    masked = torch.where(candidates, rows, torch.full((), bound, dtype=keys.dtype, device=x.device))
    best = masked.amax(-1) if largest else masked.amin(-1)
    indices = torch.where(candidates & (rows == best.unsqueeze(-1)), position, none).amax(-1)
    if nan is not None:
        last_nan = torch.where(earlier & nan, position, none).amax(-1)
        indices = torch.where(last_nan >= 0, last_nan, indices)
    # The input at the index: -0.0 and 0.0 compare equal, and torch keeps the later one's sign.
    values = moved.gather(-1, indices)
    if axis == last:
        return values, indices
    return values.movedim(last, axis), indices.movedim(last, axis)


def _trt_cumsum(x, dim: int, dtype: torch.dtype | None = None):
    """``torch.cumsum(x, dim, dtype=dtype)``; while exporting, an int32 or int64 result is summed in
    float32 (TensorRT's CumSum takes floats only) and cast to the dtype torch gives: exact while
    the elements and partial sums are integers of magnitude at most ``2**24``."""
    if torch.jit.is_scripting():
        return torch.cumsum(x, dim, dtype=dtype)
    if not isinstance(x, torch.Tensor):
        # A method call on something else (a NumPy array): its own method, as written.
        return x.cumsum(dim) if dtype is None else x.cumsum(dim, dtype=dtype)
    if _trt_onnx_exporting():
        target = _trt_cumsum_dtype(x, dtype)
        if target == torch.int64 or target == torch.int32:
            # torch casts the input to ``dtype`` first, then sums.
            source = x if dtype is None else x.to(dtype)
            return source.to(torch.float32).cumsum(dim).to(target)
    return torch.cumsum(x, dim, dtype=dtype)


def _trt_cumsum_dtype(x: torch.Tensor, dtype: torch.dtype | None) -> torch.dtype:
    """The dtype ``torch.cumsum(x, dim, dtype=dtype)`` returns: ``dtype`` when given, int64 for a
    bool or integer ``x``, else ``x``'s own."""
    if dtype is not None:
        return dtype
    if x.is_floating_point() or x.is_complex():
        return x.dtype
    return torch.int64
