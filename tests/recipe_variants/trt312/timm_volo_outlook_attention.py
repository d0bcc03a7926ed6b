"""VOLO's outlook attention: every position's window reweighted, then summed back with ``F.fold``.

Reduced from huggingface/pytorch-image-models (timm) 1.0.31, timm/models/volo.py,
``OutlookAttention.forward`` (lines 87-119; the layers are built in ``__init__``, lines 43-85):
the values are cut into ``kernel_size`` x ``kernel_size`` windows by an ``nn.Unfold`` module, each
window is weighted by attention computed from an average-pooled copy of the input, and the windows
are put back with ``F.fold(x, output_size=(H, W), kernel_size=self.kernel_size,
padding=self.padding, stride=self.stride)`` (keywords, sizes read from attributes). Written here in
our own words with a small width (8 channels, 2 heads), the 3 x 3 kernel, padding 1 and stride 2
of VOLO's first stage, and no dropout. The input is channels-last (batch, height, width, channels)
as in timm; the window grid is the ceiling of height and width over the stride, taken with
``math.ceil`` of Python numbers as timm does, which a trace records as constants: VOLO is built
for one image size (``img_size``) and only the batch varies.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class OutlookAttention(nn.Module):
    def __init__(self, dim=8, num_heads=2, kernel_size=3, padding=1, stride=2):
        super().__init__()
        self.num_heads = num_heads
        self.kernel_size = kernel_size
        self.padding = padding
        self.stride = stride
        self.scale = (dim // num_heads) ** -0.5
        self.v = nn.Linear(dim, dim, bias=False)
        self.attn = nn.Linear(dim, kernel_size ** 4 * num_heads)
        self.proj = nn.Linear(dim, dim)
        self.unfold = nn.Unfold(kernel_size=kernel_size, padding=padding, stride=stride)
        self.pool = nn.AvgPool2d(kernel_size=stride, stride=stride, ceil_mode=True)

    def forward(self, x):
        B, H, W, C = x.shape
        window = self.kernel_size * self.kernel_size
        v = self.v(x).permute(0, 3, 1, 2)
        h, w = math.ceil(H / self.stride), math.ceil(W / self.stride)
        v = self.unfold(v).reshape(B, self.num_heads, C // self.num_heads, window, h * w)
        v = v.permute(0, 1, 4, 3, 2)
        attn = self.attn(self.pool(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1))
        attn = attn.reshape(B, h * w, self.num_heads, window, window).permute(0, 2, 1, 3, 4)
        attn = (attn * self.scale).softmax(dim=-1)
        x = (attn @ v).permute(0, 1, 4, 3, 2).reshape(B, C * window, h * w)
        x = F.fold(x, output_size=(H, W), kernel_size=self.kernel_size, padding=self.padding, stride=self.stride)
        return self.proj(x.permute(0, 2, 3, 1))


def build() -> nn.Module:
    torch.manual_seed(0)
    return OutlookAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 10, 12, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
