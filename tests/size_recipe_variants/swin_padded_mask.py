"""``int(np.ceil(...))`` of sizes handed down: a Swin stage pads its mask to whole windows.

Reduced from facebookresearch/Mask2Former @ 9b0651c6c1d5b3af2e6da0589b719c514ec0d69a,
mask2former/modeling/backbone/swin.py:414-416 (``Hp = int(np.ceil(H / self.window_size)) *
self.window_size`` in ``BasicLayer.forward(self, x, H, W)``, then ``torch.zeros((1, Hp, Wp, 1))``;
the caller passes ``x.size(2), x.size(3)``), written here in our own words.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Stage(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = 4

    def forward(self, x, H, W):
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = torch.zeros((1, Hp, Wp, 1), device=x.device)
        img_mask[:, -self.window_size:, :, :] = 1
        padded = F.pad(x, (0, Wp - W, 0, Hp - H))
        return padded + img_mask.permute(0, 3, 1, 2)


class Backbone(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stage = Stage()

    def forward(self, x):
        H, W = x.size(2), x.size(3)
        return self.stage(x, H, W)


def build() -> nn.Module:
    return Backbone()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 6, 7, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
