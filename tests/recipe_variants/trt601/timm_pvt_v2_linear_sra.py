"""PVT v2's linear spatial-reduction attention in timm: the keys and values come from the tokens
pooled to a fixed 7x7 grid (``nn.AdaptiveAvgPool2d(7)``, an int literal), whatever the feature
map's size.

Reduced from timm 1.0.31 (the PyPI wheel the second zoo unpacks), timm/models/pvt_v2.py,
``Attention.__init__`` lines 115-119 (``self.pool = nn.AdaptiveAvgPool2d(7)``, a 1x1 ``sr``
convolution, ``LayerNorm``, ``GELU``) and ``Attention.forward`` lines 121-131 and 143-152
(tokens reshaped to ``(B, C, H, W)``, pooled, projected, normalized, then ``kv``, and attention
over the 49 pooled tokens). Written here in our own words with one head and the explicit softmax
path; the feature size comes from the input's shape instead of a ``feat_size`` argument.
"""

import torch
from torch import nn


class LinearSRAttention(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.scale = dim ** -0.5
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, dim * 2)
        self.proj = nn.Linear(dim, dim)
        self.pool = nn.AdaptiveAvgPool2d(7)
        self.sr = nn.Conv2d(dim, dim, kernel_size=1, stride=1)
        self.norm = nn.LayerNorm(dim)
        self.act = nn.GELU()

    def forward(self, feat: torch.Tensor) -> torch.Tensor:
        B, C, H, W = feat.shape
        x = feat.flatten(2).transpose(1, 2)
        q = self.q(x)
        x = x.permute(0, 2, 1).reshape(B, C, H, W)
        x = self.sr(self.pool(x)).reshape(B, C, -1).permute(0, 2, 1)
        x = self.act(self.norm(x))
        k, v = self.kv(x).chunk(2, dim=-1)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        return self.proj(attn.softmax(dim=-1) @ v)


def build() -> nn.Module:
    return LinearSRAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 14, 14, generator=generator),)


DYNAMIC = {"feat": {0: "batch", 2: "height", 3: "width"}}
