"""Torchelie's perceptual loss with ``rescale``: both images brought to a shorter side of 224 by an area
resize whose factor is computed from each image's own shape, before the feature network compares them.

Reduced from Vermeille/Torchelie @ bb6ad5b963741b62557b83907e427e9f641f6719,
torchelie/loss/perceptualloss.py:53-66 (``PerceptualLoss.forward``: ``s = 224 / min(y.shape[-2:])``,
``y = F.interpolate(y, scale_factor=s, mode='area')``, the same for ``x``, then the feature network on
both and the mean of the layers' losses). Written here in our own words with a shorter side of 12 and a
single convolution standing in for the VGG feature network.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PerceptualLoss(nn.Module):
    def __init__(self, side: int = 12) -> None:
        super().__init__()
        self.side = side
        self.m = nn.Conv2d(3, 4, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        s = self.side / min(y.shape[-2:])
        y = F.interpolate(y, scale_factor=s, mode='area')
        s = self.side / min(x.shape[-2:])
        x = F.interpolate(x, scale_factor=s, mode='area')
        return F.mse_loss(self.m(x), self.m(y).detach(), reduction="none").mean((1, 2, 3))


def build() -> nn.Module:
    return PerceptualLoss()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 24, 30, generator=generator), torch.rand(2, 3, 24, 30, generator=generator))


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "y": {0: "batch", 2: "height", 3: "width"}}
