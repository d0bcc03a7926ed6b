"""``torch.cummax`` / ``torch.cummin`` of integer tensors, exported as a masked max over a triangle.

The TorchScript exporter has no symbolic for ``aten::cummax`` or ``aten::cummin`` (torch 2.13, any
opset): the export fails. The running extreme at position ``i`` is the extreme over positions
``j <= i``: compare every position with every earlier one (a lower triangle), take ``amax``
(``amin``) over it, and as the index the last earlier position that holds that value, which is
the one torch returns among equal values. ``_trt_cummax`` / ``_trt_cummin`` are the torch
functions themselves everywhere except inside ``torch.onnx.export``, and only integer tensors
take the triangle there: a float tensor's NaN makes torch's index another than the triangle's.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_cummax(x, dim: int):
    """``torch.cummax(x, dim)``; while exporting an integer tensor, the same values and indices
    from a triangle of comparisons (``n * n`` booleans per row: for short axes, as token ids)."""
    if torch.jit.is_scripting():
        return torch.cummax(x, dim)
    if _trt_onnx_exporting() and _trt_integer_tensor(x, dim):
        return torch.return_types.cummax(_trt_running_extreme(x, dim, True))
    return torch.cummax(x, dim)


def _trt_cummin(x, dim: int):
    """``torch.cummin(x, dim)``; while exporting an integer tensor, as :func:`_trt_cummax`."""
    if torch.jit.is_scripting():
        return torch.cummin(x, dim)
    if _trt_onnx_exporting() and _trt_integer_tensor(x, dim):
        return torch.return_types.cummin(_trt_running_extreme(x, dim, False))
    return torch.cummin(x, dim)


def _trt_integer_tensor(x, dim: int) -> bool:
    """An integer tensor (not bool) with ``dim`` one of its axes: the inputs the triangle takes."""
    return (isinstance(x, torch.Tensor) and x.dim() > 0 and -x.dim() <= dim < x.dim()
            and not x.is_floating_point() and not x.is_complex() and x.dtype != torch.bool)


@torch.jit.unused
def _trt_running_extreme(x, dim: int, largest: bool):
    """Values and indices of the running max (min) along ``dim`` (never runs when scripted)."""
    axis, last = dim % x.dim(), x.dim() - 1
    # Positive axes: the TorchScript exporter writes ``movedim(-1, ...)`` as a Transpose with a -1 in perm.
    moved = x if axis == last else x.movedim(axis, last)
    n = moved.shape[-1]
    position = torch.arange(n, device=x.device)
    earlier = position.unsqueeze(0) <= position.unsqueeze(1)  # [i, j]: j <= i
    rows = moved.unsqueeze(-2).expand(*moved.shape[:-1], n, n)
    info = torch.iinfo(x.dtype)
    fill = torch.full((), info.min if largest else info.max, dtype=x.dtype, device=x.device)
    masked = torch.where(earlier, rows, fill)
    values = masked.amax(-1) if largest else masked.amin(-1)
    hit = earlier & (rows == values.unsqueeze(-1))
    indices = torch.where(hit, position, torch.full((), -1, dtype=torch.int64, device=x.device)).amax(-1)
    if axis == last:
        return values, indices
    return values.movedim(last, axis), indices.movedim(last, axis)
