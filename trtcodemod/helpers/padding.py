"""Zero padding, exported as concatenation instead of an ONNX ``Pad`` node.

``F.pad(x, pads)`` exports (TorchScript exporter) as a ``Pad`` whose ``pads`` input
is computed by a small subgraph that is not constant-folded ("Only steps=1 can be
constant folded ... Slice op"). Old TensorRT parsers need ``pads`` as an
initializer, accept only constant-0 padding and take no bool tensors there;
``Concat`` of the input with zero blocks is supported by every version. Outside
``torch.onnx.export`` the helpers are ``F.pad`` itself.
"""

from __future__ import annotations

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_zero_pad(input: torch.Tensor, pad: list[int]) -> torch.Tensor:
    """``F.pad(input, pad)`` (constant 0); while exporting to ONNX, built with ``torch.cat``.

    Eager, scripted, fx-traced, compiled and ``torch.export``-ed code runs ``F.pad``
    itself: same values, strides (channels_last stays channels_last), gradients,
    quantized inputs and errors. The concatenation is used only for what it computes
    exactly: a tensor with non-negative Python int pads (literals or the module's attributes).
    """
    if torch.jit.is_scripting():
        return torch.nn.functional.pad(input, pad)
    if (
        _trt_onnx_exporting()
        and isinstance(input, torch.Tensor)
        and len(pad) % 2 == 0
        and len(pad) // 2 <= input.dim()
        and all(type(amount) is int and amount >= 0 for amount in pad)
    ):
        return _trt_zero_pad_onnx(input, pad)
    return torch.nn.functional.pad(input, pad)


def _trt_zero_pad_onnx(input: torch.Tensor, pad) -> torch.Tensor:
    """``F.pad(input, pad)`` (constant 0) for non-negative int ``pad``, built with ``torch.cat``.

    ``pad`` lists (before, after) pairs starting from the last axis, as in ``F.pad``.
    The zero blocks take their shape, dtype and device from ``input``.
    """
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
    """``nn.ZeroPad2d`` that exports as concatenation (same arguments, attributes and state)."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return _trt_zero_pad(input, self.padding)
