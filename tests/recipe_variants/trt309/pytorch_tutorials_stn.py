"""A spatial transformer network, ``F.affine_grid(theta, x.size())`` without ``align_corners``: PyTorch's tutorial.

Reduced from pytorch/tutorials at c53e7d4efc0e39e455c531d21ec7db28ba220214,
intermediate_source/spatial_transformer_tutorial.py, ``Net.stn``: a localization network
regresses ``theta`` (``N x 2 x 3``, initialised to the identity), ``grid = F.affine_grid(theta,
x.size())`` (the size as the input's ``torch.Size``, no ``align_corners``, so False with a
warning) and ``F.grid_sample(x, grid)``. Written here in our own words with a smaller
localization network over 12 x 12 images; the classifier after the transformer is left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SpatialTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
        self.fc_loc = nn.Linear(4 * 4 * 4, 6)
        with torch.no_grad():
            self.fc_loc.weight.mul_(0.1)
            self.fc_loc.bias.copy_(torch.tensor([1.0, 0.1, 0.0, -0.1, 1.0, 0.0]))

    def forward(self, x):
        xs = self.localization(x).view(-1, 4 * 4 * 4)
        theta = self.fc_loc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size())
        return F.grid_sample(x, grid)


def build() -> nn.Module:
    return SpatialTransformer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 1, 12, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
