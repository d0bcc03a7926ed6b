"""LFFD's priors: square maps (``product(range(f), repeat=2)``), one list of three numbers appended per
cell (``priors.append([cx, cy, scale_factor])``), the list's own name bound to ``torch.tensor(priors)``
(two axes: one row per cell) and clamped in place.

Reduced from aoru45/LFFD-Pytorch @ b76596b7af32e2fddad78275ccd90c09ac8e20bb, priors.py:21-41
(``Priors.__call__``), written here in our own words; the image size and the maps come from a square
input instead of the configuration module.
"""

from itertools import product

import torch
from torch import nn


class Priors:
    def __init__(self, side, maps):
        self.image_size = side
        self.strides = [2, 4]
        self.scale_factors = [3, 7]
        self.feature_maps = maps

    def __call__(self):
        priors = []
        for k, f in enumerate(self.feature_maps):
            scale = self.image_size / self.strides[k]
            for i, j in product(range(f), repeat=2):

                cx = (j + 0.5) / scale
                cy = (i + 0.5) / scale
                scale_factor = self.scale_factors[k] * 0.5 / self.image_size
                priors.append([cx, cy, scale_factor])

        priors = torch.tensor(priors)
        priors.clamp_(max=1, min=0)
        return priors


class LFFD(nn.Module):
    def forward(self, x):
        side = x.shape[-1]
        return Priors(side, [side // 2, side // 4])() * x.mean()


def build() -> nn.Module:
    return LFFD()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 10, 10, generator=generator) + 1,)


DYNAMIC = {"x": {0: "batch", 2: "side", 3: "side"}}
