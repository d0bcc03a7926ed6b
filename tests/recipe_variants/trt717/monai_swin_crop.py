"""Crop the window padding off only when there was some: monai's Swin block.

Reduced from monai 1.6.1 (the PyPI wheel), monai/networks/nets/swin_unetr.py:722-746
(``SwinTransformerBlock.forward_part1``, 2-D case: ``pad_r = (window_size[1] - w % window_size[1]) %
window_size[1]``, an unconditional ``F.pad``, window attention on the padded map, then ``if pad_r > 0
or pad_b > 0: x = x[:, :h, :w, :].contiguous()``), written here in our own words with a per-window
mean standing in for the attention.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SwinBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = 4
        self.mix = nn.Linear(6, 6)

    def forward(self, x):
        b, h, w, c = x.shape
        ws = self.window_size
        pad_r = (ws - w % ws) % ws
        pad_b = (ws - h % ws) % ws
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, hp, wp, _ = x.shape
        windows = x.view(b, hp // ws, ws, wp // ws, ws, c)
        windows = self.mix(windows) + windows.mean(dim=(2, 4), keepdim=True)
        x = windows.view(b, hp, wp, c)
        if pad_r > 0 or pad_b > 0:
            x = x[:, :h, :w, :].contiguous()
        return x


def build() -> nn.Module:
    return SwinBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 8, 6, generator=generator),)


DYNAMIC = {"x": {1: "h", 2: "w"}}
