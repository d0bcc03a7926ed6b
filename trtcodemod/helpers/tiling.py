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



def _trt_range_blocks(blocks: list[torch.Tensor], count: int):
    """``torch.cat(blocks)`` where ``blocks`` is ``[torch.full(size, i, ...) for i in range(count)]``: ``count``
    blocks of one shape along the first axis, block ``i`` filled with ``i`` (a batch-index column built per
    sample, lift-splat-shoot's ``batch_ix``); while exporting to ONNX, the same tensor built at once.

    A traced export runs the comprehension with the example's ``count`` and records one ``full`` per block:
    at another batch size the graph still concatenates the example's number of blocks. While exporting (for
    at least one block of at least one axis), ``arange(count)`` is broadcast over the first block's shape and
    flattened into the first axis, in its dtype and on its device: the same values in the same order, with
    ``count`` and the block's sizes as the trace keeps them (the traced blocks are left unused). Outside an
    export, and under ``torch.jit.script``, ``torch.cat(blocks)`` itself: the comprehension ran as written.
    """
    if torch.jit.is_scripting():
        return torch.cat(blocks)
    if _trt_onnx_exporting() and count > 0 and len(blocks) > 0 and blocks[0].dim() > 0:
        return _trt_range_blocks_at_once(blocks[0], count)
    return torch.cat(blocks)


@torch.jit.unused
def _trt_range_blocks_at_once(block, count):
    """``arange(count)`` broadcast over ``[count] + block.shape``, flattened into ``count * block.shape[0]`` rows."""
    size = list(block.shape)
    rows = torch.arange(count, dtype=torch.int64, device=block.device)
    blocks = rows.view([count] + [1] * len(size)).expand([count] + size)
    return blocks.reshape([count * size[0]] + size[1:]).to(block.dtype)
