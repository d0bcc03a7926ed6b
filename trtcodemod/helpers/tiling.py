"""``torch.tile``, exported as ``repeat`` (``Expand`` and ``Tile`` of a known rank).

The TorchScript exporter writes ``tile`` (opset 13 and later) with two ``If`` nodes that compare
the tensor's rank with the number of counts while the graph runs (pad the counts with ones, or
pad the shape with ones). Both ranks are known when the model is traced, but an ``If`` output has
no static shape: every value computed from the result loses its rank and sizes in the exporter's
shape inference, and an operator whose symbolic needs them fails further on
(``instance_norm``/``batch_norm`` "for unknown channel size", ``transpose`` "of unknown rank").
``torch.tile`` is ``repeat`` with the counts padded with leading ones to the tensor's rank, which
is what the helper computes, with Python ints, while exporting.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_tile(x, dims: list[int]):
    """``torch.tile(x, dims)``; while exporting to ONNX, ``x.repeat`` with ``dims`` padded with
    leading ones to ``x``'s rank: the same values, shape, dtype and (new, contiguous) storage.

    Eager, scripted, fx-traced, compiled and ``torch.export``-ed code runs ``torch.tile``
    itself; so does an object that is not a tensor, and its error."""
    if torch.jit.is_scripting():
        return torch.tile(x, dims)
    if _trt_onnx_exporting() and isinstance(x, torch.Tensor):
        counts = list(dims)
        return x.repeat([1] * (x.dim() - len(counts)) + counts)
    return torch.tile(x, dims)
