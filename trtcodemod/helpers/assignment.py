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
    return _trt_fill_value_fits(target, value)


def _trt_fill_value_fits(target, value) -> bool:
    """Whether ``target.masked_fill_(mask, value)`` writes the number ``value`` as an assignment into ``target``
    does, in eager mode and in the exported graph: a dtype with an ONNX Runtime ``Where`` kernel, a value the
    dtype holds (``masked_fill_`` raises where the assignment writes inf into float16), and not ``-0.0``."""
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


def _trt_slice_fill(target: torch.Tensor) -> torch.Tensor:
    """``target`` itself, the base of ``_trt_slice_fill(target)[:, h, w, :] = value``; while exporting, an object
    whose item assignment writes the same elements as a ``masked_fill_``.

    Swin's shifted-window mask writes ``img_mask[:, h, w, :] = cnt`` with ``h = slice(0, -window)``, empty where
    the padded size equals the window (the last stage, small inputs); the TorchScript exporter (torch 2.13) then
    stops in the index_put's shape inference ("minus_one_pos != -1 INTERNAL ASSERT FAILED ... shape_has_zero").
    Outside ``torch.onnx.export`` (eager, ``torch.jit.script``, fx, compile, export) the statement is the write
    itself, on the same object: values, aliasing, autograd and exceptions are those of the original.
    """
    if torch.jit.is_scripting():
        return target
    if _trt_onnx_exporting():
        return _trt_slice_filler(target)
    return target


@torch.jit.unused
def _trt_slice_filler(target):
    """The exporting form of :func:`_trt_slice_fill` (a Python object TorchScript never compiles)."""
    return _TrtSliceFill(target)


class _TrtSliceFill:
    """``target[key] = value`` written as ``target.masked_fill_(mask, value)`` where ``key`` holds only full
    slices, ``...`` and slices with int bounds, and ``value`` is a number (or a 0-d tensor of ``target``'s dtype
    and device) that the fill writes as the assignment does; every other write is the assignment itself."""

    def __init__(self, target):
        self.target = target

    def __setitem__(self, key, value):
        mask = _trt_slice_fill_mask(self.target, key, value)
        if mask is None:
            self.target[key] = value  # what the helper does not handle: the original write
        else:
            self.target.masked_fill_(mask, value)


def _trt_slice_fill_mask(target, key, value):
    """The boolean mask (broadcastable to ``target``) of the elements ``target[key]`` names, or None where
    ``masked_fill_`` would not write what ``target[key] = value`` writes."""
    if not isinstance(target, torch.Tensor) or target.is_quantized:
        return None
    if isinstance(value, torch.Tensor):
        if value.dim() != 0 or value.dtype != target.dtype or value.device != target.device:
            return None  # the write converts or broadcasts it; the fill would raise or differ
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    elif not _trt_fill_value_fits(target, value):
        return None
    elements = list(key) if isinstance(key, tuple) else [key]
    if any(e is Ellipsis for e in elements):
        if sum(1 for e in elements if e is Ellipsis) > 1:
            return None  # the write raises
        at = elements.index(Ellipsis)
        elements = elements[:at] + [slice(None)] * (target.dim() - len(elements) + 1) + elements[at + 1:]
    if len(elements) > target.dim():
        return None  # too many indices: the write raises
    mask = None
    for axis, element in enumerate(elements):
        if not isinstance(element, slice):
            return None  # an int (a select), None (a new axis), a tensor or list (advanced indexing)
        bounds = (element.start, element.stop, element.step)
        if not all(b is None or isinstance(b, int) and not isinstance(b, bool) for b in bounds):
            return None  # a tensor or another object as a bound: the write's own conversion
        start, stop, step = bounds
        if step is not None and (step <= 0 or step > 1 and start is not None and start < 0):
            return None  # the write raises (a step of 0 or below), or the start would need clamping
        if start is None and stop is None and step in (None, 1):
            continue  # the whole axis
        size = target.shape[axis]
        index = torch.arange(size, device=target.device)
        # Python's slice bounds: a negative bound counts from the end; a bound past either end clamps, which
        # these comparisons do by themselves (no index lies below 0 or at `size` or above).
        keep = torch.ones_like(index, dtype=torch.bool)
        if start is not None:
            keep = keep & (index >= start if start >= 0 else index - size >= start)
        if stop is not None:
            keep = keep & (index < stop if stop >= 0 else index - size < stop)
        if step is not None and step > 1:
            keep = keep & (torch.remainder(index - (start or 0), step) == 0)
        shape = [1] * target.dim()
        shape[axis] = -1
        keep = keep.reshape(shape)
        mask = keep if mask is None else mask & keep
    if mask is None:
        mask = torch.ones((1,) * target.dim(), dtype=torch.bool, device=target.device)
    return mask
