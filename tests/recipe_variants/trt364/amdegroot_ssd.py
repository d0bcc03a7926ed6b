"""SSD's priors: square feature maps (``product(range(f), repeat=2)``), ``mean += [...]`` several
times per cell, ``sqrt`` of the size ratios, and a loop over the aspect ratios, then
``torch.Tensor(mean).view(-1, 4)``.

Reduced from amdegroot/ssd.pytorch @ 5b0b77faa955c1917b0c710d770739ba8fbff9b7,
layers/functions/prior_box.py:28-55 (``PriorBox.forward``), written here in our own words. The
original's image size and feature maps come from the configuration; here from a square input's size.
"""

from itertools import product
from math import sqrt

import torch
from torch import nn


class Priors(object):
    def __init__(self, side, maps):
        self.side = side
        self.maps = maps
        self.strides = [2, 4]
        self.small = [2, 5]
        self.large = [5, 9]
        self.ratios = [[2], [2, 3]]

    def forward(self):
        mean = []
        for k, f in enumerate(self.maps):
            for i, j in product(range(f), repeat=2):
                f_k = self.side / self.strides[k]
                cx = (j + 0.5) / f_k
                cy = (i + 0.5) / f_k

                s_k = self.small[k] / self.side
                mean += [cx, cy, s_k, s_k]

                s_k_prime = sqrt(s_k * (self.large[k] / self.side))
                mean += [cx, cy, s_k_prime, s_k_prime]

                for ar in self.ratios[k]:
                    mean += [cx, cy, s_k * sqrt(ar), s_k / sqrt(ar)]
                    mean += [cx, cy, s_k / sqrt(ar), s_k * sqrt(ar)]
        output = torch.Tensor(mean).view(-1, 4)
        output.clamp_(max=1, min=0)
        return output


class SSD(nn.Module):
    def forward(self, x):
        side = x.shape[-1]
        return Priors(side, [side // 2, side // 4]).forward() * x.mean()


def build() -> nn.Module:
    return SSD()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 12, 12, generator=generator) + 1,)


DYNAMIC = {"x": {0: "batch", 2: "side", 3: "side"}}
