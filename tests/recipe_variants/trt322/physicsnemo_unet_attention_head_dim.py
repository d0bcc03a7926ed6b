"""NVIDIA PhysicsNeMo's U-Net self-attention (DDPM++ / NCSN++ / ADM style): a 1x1 convolution makes
the queries, keys and values of every pixel, laid out heads first, pixels next and each head's
channels last, and ``F.scaled_dot_product_attention`` gets ``scale=1 / math.sqrt(k.shape[-1])``: a
scale computed from a traced size, written the way the recipe's search looked for
(``1 / math.sqrt(q.size(-1))``). The size is each head's number of channels, which the weights fix
(``out_channels // num_heads``), not the image size: the TorchScript export does read it into a
float, but the float is the one every input gives, so the original graph already follows the image.

Reduced from NVIDIA/physicsnemo @ 94b355108cfd10e253d3d41cacdc0c0112b078e4,
physicsnemo/nn/module/attention_layers.py, ``UNetAttention`` (lines 69-178; its ``forward`` at
lines 158-178, the reshape, permute and picks at lines 168-171, the call at lines 172-174). Kept: the
group norm, the qkv convolution, the reshape to (batch, heads, channels per head, 3, pixels), the
``permute(0, 1, 4, 3, 2)`` and the three picks, the call with that scale, the transpose back, the
output projection and the residual. Reduced: PhysicsNeMo's own ``Conv2d`` and group norm (their
initialisation options, Apex and AMP switches) are torch's ``nn.Conv2d`` and ``nn.GroupNorm``, and
the residual add is out of place. Written here in our own words.
"""

import math

import torch
from torch import nn


class UNetAttention(nn.Module):
    def __init__(self, out_channels: int = 16, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.norm = nn.GroupNorm(4, out_channels)
        self.qkv = nn.Conv2d(out_channels, out_channels * 3, 1)
        self.proj = nn.Conv2d(out_channels, out_channels, 1)

    def forward(self, x):
        x1 = self.qkv(self.norm(x))
        qkv = x1.reshape(x.shape[0], self.num_heads, x.shape[1] // self.num_heads, 3, -1).permute(0, 1, 4, 3, 2)
        (q, k, v) = (qkv[..., i, :] for i in range(3))
        attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(k.shape[-1]))
        attn = attn.transpose(-1, -2)
        return self.proj(attn.reshape(*x.shape)) + x


def build() -> nn.Module:
    return UNetAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 6, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1 / math.sqrt(k.shape[-1]))"
