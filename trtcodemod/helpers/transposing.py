"""``x.mT``, exported as ``Transpose``.

The TorchScript exporter has no symbolic for ``aten::mT`` (torch 2.13, every opset), the
property that swaps a tensor's last two axes: the export stops. ``x.transpose(-2, -1)`` is the same
view and exports as ``Transpose``. ``_trt_mT`` is ``x.mT`` itself everywhere except inside
``torch.onnx.export``, where it takes ``transpose``.

TRT371's helpers: ``_trt_movedim`` is ``x.movedim(source, destination)`` (``torch.movedim``) with
a negative ``source`` counted from the front while exporting: the TorchScript exporter's ``movedim``
writes the source into the ``Transpose`` permutation as written (torch 2.13, ``perm=[0, 1, -1, 2]`` for
``movedim(-1, 2)`` of a 4-D tensor), a graph ONNX Runtime refuses at load and TensorRT cannot parse;
``_trt_permute`` is ``x.permute(dims)`` with its negative axes counted from the front while exporting,
for the same reason (``permute``'s axes go into the ``Transpose`` as written).
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_mT(x):
    """``x.mT``; while exporting a tensor of two or more axes to ONNX, ``x.transpose(-2, -1)``,
    the same view of the same storage. Anything else (fewer axes, which ``mT`` refuses, or an
    object that is not a tensor: NumPy arrays have ``mT`` too) keeps ``x.mT``."""
    if torch.jit.is_scripting():
        return x.mT
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor) and x.dim() >= 2:
        return x.transpose(-2, -1)
    return x.mT


def _trt_movedim(x, source: int, destination: int):
    """``x.movedim(source, destination)``; while exporting to ONNX, a negative ``source`` within ``x``'s
    rank is passed counted from the front (``source + x.dim()``), the same axis, so the same view.
    Anything else (scripted, not a tensor, an axis out of range, a 0-d tensor) is ``movedim`` as
    written, with its own errors."""
    if torch.jit.is_scripting():
        return x.movedim(source, destination)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        rank = x.dim()
        if (type(source) is int and type(destination) is int and -rank <= source < 0
                and -rank <= destination < rank):
            return x.movedim(source + rank, destination)
    return x.movedim(source, destination)


def _trt_torch_movedim(x, source: int, destination: int):
    """``torch.movedim(x, source, destination)``, with ``_trt_movedim``'s source while exporting."""
    if torch.jit.is_scripting():
        return torch.movedim(x, source, destination)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        rank = x.dim()
        if (type(source) is int and type(destination) is int and -rank <= source < 0
                and -rank <= destination < rank):
            return torch.movedim(x, source + rank, destination)
    return torch.movedim(x, source, destination)


def _trt_permute(x, dims: list[int]):
    """``x.permute(*dims)``; while exporting to ONNX, negative axes within ``x``'s rank are passed
    counted from the front when together they are a permutation of its axes (the TorchScript
    exporter writes ``permute``'s axes into the ``Transpose`` as they are). Anything else is
    ``permute`` as written, one axis an argument, with its own errors."""
    if torch.jit.is_scripting():
        return x.permute(dims)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        rank = x.dim()
        if all(type(d) is int for d in dims):
            front = [d + rank if d < 0 else d for d in dims]
            if sorted(front) == list(range(rank)):
                return x.permute(*front)
    return x.permute(*dims)
