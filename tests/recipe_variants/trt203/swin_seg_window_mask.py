"""Swin's segmentation backbone: the same shifted-window mask as the detection backbone's (an
empty ``slice(0, -window)`` where the padded size equals the window), here at a feature map whose
rows need padding and whose columns equal the window.

Reduced from SwinTransformer/Swin-Transformer-Semantic-Segmentation@87e6f90577435c94f3e92c7db1d36edc234d91f6
mmseg/models/backbones/swin_transformer.py:362-390 (``BasicLayer.forward``: the padded sizes, the zeros
mask, the slices, the loop writing ``cnt``), written here in our own words: the mask's region numbers are
returned per position next to the feature map's mean, and the window and shift are read from attributes.
"""

import numpy as np
import torch
from torch import nn


class SegWindowMask(nn.Module):
    def __init__(self, window: int = 4) -> None:
        super().__init__()
        self.window_size = window
        self.shift_size = window // 2

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        H, W = feats.shape[2], feats.shape[3]
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = torch.zeros((1, Hp, Wp, 1), device=feats.device)
        h_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size),
                    slice(-self.shift_size, None))
        w_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size),
                    slice(-self.shift_size, None))
        cnt = 0
        for h in h_slices:
            for w in w_slices:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        return img_mask[:, :H, :W, 0] + feats.mean(1)


def build() -> nn.Module:
    return SegWindowMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 7, 4, generator=generator),)  # rows padded to 8, columns equal to the window


DYNAMIC = {"feats": {0: "batch"}}
