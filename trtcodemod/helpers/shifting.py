"""A disparity plane of a cost volume computed at full width (TRT369).

Stereo networks fill a cost volume one disparity ``i`` at a time by writing the columns from ``i`` on,
``volume[:, :, i, :, i:] = f(ref[:, :, :, i:], tgt[:, :, :, :-i])``. Where a feature map is ``i``
columns wide or narrower the slices are empty, and the exported graph meets a zero-size ``Reshape`` or
``ScatterND`` there, which ONNX Runtime and TensorRT refuse. The rewrite computes every plane at full
width: ``_trt_shift_right(tgt, i, 3)`` is the target moved ``i`` columns to the right with zeros coming
in (column ``j`` holds the target's column ``j - i``), and ``_trt_where_from(plane, value, i, 3)`` keeps
the plane's own columns before ``i`` and takes ``value``'s from ``i`` on, with ``torch.where`` (a NaN or
inf that ``value`` holds left of ``i`` is never multiplied into anything). Both are plain torch code, the
same in eager mode and in every exporter, with no empty tensor at any width.
"""

import torch


def _trt_shift_right(x, shift, dim):
    # type: (Tensor, int, int) -> Tensor
    """``x`` moved ``shift`` places toward the end of axis ``dim``, zeros filling the first ``shift`` places
    (all of them where ``shift`` is the axis's length or more): place ``j`` holds ``x``'s place ``j - shift``."""
    rank = x.dim()
    axis = dim + rank if dim < 0 else dim
    size = x.shape[axis]
    pads = [0, 0] * (rank - 1 - axis) + [shift, 0]
    return torch.nn.functional.pad(x, pads).narrow(axis, 0, size)


def _trt_where_from(old, value, start, dim):
    # type: (Tensor, Tensor, int, int) -> Tensor
    """``old`` with its places from ``start`` on along axis ``dim`` taken from ``value`` (broadcast as an
    assignment would): ``torch.where``, so what ``value`` holds before ``start`` never reaches the result."""
    rank = old.dim()
    axis = dim + rank if dim < 0 else dim
    column = torch.arange(old.shape[axis], device=old.device)
    column = column.view([-1] + [1] * (rank - 1 - axis))
    return torch.where(column >= start, value, old)
