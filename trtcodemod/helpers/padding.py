"""Zero padding as concatenation, for graphs without an ONNX ``Pad`` node.

``F.pad(x, pads)`` exports (TorchScript exporter) as a ``Pad`` whose ``pads`` input
is computed by a small subgraph that is not constant-folded ("Only steps=1 can be
constant folded ... Slice op"). Old TensorRT parsers need ``pads`` as an
initializer, accept only constant-0 padding and take no bool tensors there;
``Concat`` of the input with zero blocks is supported by every version.
"""

from __future__ import annotations

import torch


def _trt_zero_pad(input: torch.Tensor, pad) -> torch.Tensor:
    """``F.pad(input, pad)`` (constant 0) for non-negative ``pad``, built with ``torch.cat``.

    ``pad`` lists (before, after) pairs starting from the last axis, as in ``F.pad``.
    The zero blocks take their shape, dtype and device from ``input``.
    """
    if len(pad) % 2 or len(pad) // 2 > input.dim():
        raise ValueError(f"padding length {len(pad)} is invalid for a {input.dim()}-D input")
    if any(amount < 0 for amount in pad):
        raise ValueError(f"negative padding (cropping) is not supported here: {tuple(pad)}")
    out = input
    for pair in range(len(pad) // 2):
        dim = input.dim() - 1 - pair
        before, after = pad[2 * pair], pad[2 * pair + 1]
        blocks = [out]
        if before:
            blocks.insert(0, out.new_zeros(out.shape[:dim] + (before,) + out.shape[dim + 1:]))
        if after:
            blocks.append(out.new_zeros(out.shape[:dim] + (after,) + out.shape[dim + 1:]))
        if len(blocks) > 1:
            out = torch.cat(blocks, dim)
    # F.pad always returns a new tensor, never the input itself.
    return out if out is not input else input.clone()


class _TrtZeroPad2d(torch.nn.ZeroPad2d):
    """``nn.ZeroPad2d`` built with ``torch.cat`` (same arguments; non-negative padding only)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_zero_pad(input, self.padding)
