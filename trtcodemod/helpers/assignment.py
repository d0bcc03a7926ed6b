"""A number written through a boolean mask, exported as ``Where`` instead of a scatter.

``t[mask] = 0.0`` exports (dynamo exporter) as ``NonZero`` + ``ScatterND``;
``t.masked_fill_(mask, 0.0)`` exports as a single ``Where`` with both exporters. The two
agree only when the mask covers ``t``'s leading axes exactly (``t[mask]`` indexes leading
axes, while ``masked_fill_`` broadcasts from the trailing ones), so the helpers take
``masked_fill_`` only then, and only while ``torch.onnx.export`` runs. Everywhere else they
are the assignment itself. There are two helpers because TorchScript needs the value's
type: ``_trt_mask_fill_float`` for float literals, ``_trt_mask_fill_int`` for int literals.

Where ``masked_fill_`` would export another program, the helpers keep the assignment while
exporting too (measured with torch 2.13 and ONNX Runtime 1.23): dtypes ONNX Runtime has no
``Where`` kernel for (bool, int16, bfloat16), and a ``-0.0`` fill (the dynamo exporter's
constant loses its sign). A write through an indexed view (``b[..., 2][m] = 0``) is kept by
the TorchScript exporter only when the view and the write are one expression, so TRT204
leaves such targets alone; no helper can write through them.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_mask_fill_float(target, mask, value: float) -> None:
    """``target[mask] = value`` for a float ``value``; a ``Where`` in the exported graph.

    Outside ``torch.onnx.export`` this is the assignment itself, whatever ``target`` and
    ``mask`` are (a NumPy array, a long index, a mask of the wrong shape that raises).
    """
    if torch.jit.is_scripting():
        target[mask] = value
        return
    if _trt_onnx_exporting() and _trt_mask_fill_covers(target, mask, value):
        target.masked_fill_(mask.reshape(mask.shape + (1,) * (target.dim() - mask.dim())), value)
        return
    target[mask] = value


def _trt_mask_fill_int(target, mask, value: int) -> None:
    """``target[mask] = value`` for an int ``value``; a ``Where`` in the exported graph."""
    if torch.jit.is_scripting():
        target[mask] = value
        return
    if _trt_onnx_exporting() and _trt_mask_fill_covers(target, mask, value):
        target.masked_fill_(mask.reshape(mask.shape + (1,) * (target.dim() - mask.dim())), value)
        return
    target[mask] = value


def _trt_mask_fill_covers(target, mask, value) -> bool:
    """Whether ``target.masked_fill_`` computes exactly ``target[mask] = value``.

    It does for a bool tensor ``mask`` whose shape is that of ``target``'s leading axes, and
    a number ``value`` that the target's dtype holds without overflow (``masked_fill_``
    raises where the assignment writes inf into float16). The exported graph computes it
    too only for a dtype with an ONNX Runtime ``Where`` kernel and a value other than ``-0.0``.
    """
    if not (isinstance(target, torch.Tensor) and isinstance(mask, torch.Tensor)):
        return False
    if mask.dtype != torch.bool or mask.dim() > target.dim() or target.is_quantized:
        return False
    if tuple(mask.shape) != tuple(target.shape[: mask.dim()]):
        return False
    if target.dtype not in (torch.float32, torch.float64, torch.float16, torch.int64, torch.int32,
                            torch.int8, torch.uint8):
        return False
    if target.is_floating_point():
        if value == 0 and str(float(value)).startswith("-"):
            return False
        return value != value or abs(value) == float("inf") or abs(value) <= torch.finfo(target.dtype).max
    info = torch.iinfo(target.dtype)
    return isinstance(value, int) and info.min <= value <= info.max


def _trt_mask_rows(mask, target):
    """``mask`` with trailing size-1 axes up to ``target``'s rank, for ``torch.where``.

    ``target[mask]`` selects along ``target``'s leading axes; ``torch.where`` broadcasts from
    the trailing ones, so TRT202's rewrite of ``target[mask] op= value`` widens the mask with
    this (Unsqueeze nodes in the exported graph, no shape arithmetic). In eager mode a mask
    that does not match ``target``'s leading axes raises the ``IndexError`` the indexing
    raises, where broadcasting would accept a size-1 mask axis; while tracing the check is
    left out, as the original's export leaves it out.
    """
    if not torch.jit.is_tracing():
        if mask.dim() > target.dim() or list(mask.shape) != list(target.shape[: mask.dim()]):
            raise IndexError(f"The shape of the mask {list(mask.shape)} does not match the leading axes of the "
                             f"indexed tensor {list(target.shape)}")
    rows = mask
    for _ in range(target.dim() - mask.dim()):
        rows = rows.unsqueeze(-1)
    return rows
