"""transformers' MXFP8 dequantization: E8M0 block scales stored as bytes become ``2 ** (byte - 127)``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/integrations/finegrained_fp8.py:
``Fp8Dequantize._dequantize_one`` (lines 1130-1173). The quantized weight, already in float32,
is split into a grid of blocks that matches the scale tensor's last two axes; when the scales are
``torch.uint8`` (MXFP8's E8M0 exponents, one byte per block) they are turned into float32 factors
with ``(scales.to(torch.float32) - 127.0).exp2()``, otherwise taken as they are; each block is
multiplied by its factor and the weight reshaped back (and cast to the output dtype, left out
here: float32 throughout). transformers runs this when it loads a checkpoint; here a linear layer
runs it on every call (dequantize-on-the-fly, as inference code without FP8 kernels does), with
the weight and scales held as buffers. Written here in our own words. Form kept: the method ``.exp2()`` on a parenthesised expression, under the ``uint8`` test.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MXFP8Linear(nn.Module):
    def __init__(self, in_features: int = 16, out_features: int = 8, block: int = 4) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(3)
        grid = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, -0.5, -1.0, -2.0])
        self.register_buffer("weight", grid[torch.randint(0, 8, (out_features, in_features), generator=g)])
        self.register_buffer("scales", torch.randint(120, 132, (out_features // block, in_features // block),
                                                     generator=g, dtype=torch.uint8))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def dequantize(self, quantized_fp32, scales):
        rows, cols = quantized_fp32.shape[-2:]
        scale_rows, scale_cols = scales.shape[-2:]
        block_m, block_n = rows // scale_rows, cols // scale_cols
        if scales.dtype == torch.uint8:
            s_fp32 = (scales.to(torch.float32) - 127.0).exp2()
        else:
            s_fp32 = scales.to(torch.float32)
        original_shape = quantized_fp32.shape
        q = quantized_fp32.reshape(-1, scale_rows, block_m, scale_cols, block_n)
        s = s_fp32.reshape(-1, scale_rows, scale_cols).unsqueeze(-1).unsqueeze(2)
        return (q * s).reshape(original_shape)

    def forward(self, x):
        return F.linear(x, self.dequantize(self.weight, self.scales), self.bias)


def build() -> nn.Module:
    return MXFP8Linear().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 5, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
