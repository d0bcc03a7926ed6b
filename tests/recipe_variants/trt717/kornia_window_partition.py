"""Pad to whole windows only when needed, in a plain function: kornia's window partition.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/models/common.py:185-210 (``window_partition(x,
window_size)``: ``pad_h = (window_size - H % window_size) % window_size``, ``if pad_h > 0 or pad_w >
0: x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))``, then ``x.view(...)`` into windows; the same code is in
segment_anything's and ultralytics' SAM image encoders), written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def window_partition(x, window_size):
    B, H, W, C = x.shape
    pad_h = (window_size - H % window_size) % window_size
    pad_w = (window_size - W % window_size) % window_size
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    Hp, Wp = H + pad_h, W + pad_w
    x = x.view(B, Hp // window_size, window_size, Wp // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window_size, window_size, C)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(5)

    def forward(self, x):
        windows = window_partition(self.norm(x), 4)
        return windows.mean(dim=(1, 2))


def build() -> nn.Module:
    return Encoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 12, 5, generator=generator),)


DYNAMIC = {"x": {1: "h", 2: "w"}}
