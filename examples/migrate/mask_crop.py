"""Point cropping with a mask known only by its name, and a ``len()`` of a tensor.

``points[valid_mask]``: ``check`` cannot tell a boolean mask from a long index by the name
``valid_mask``, so TRT201's fix needs ``--unsafe``. ``migrate`` observes the index: a 1-D bool
tensor on every run, which proves it. ``len(points)`` read the tensor's length (baked in).

    trtcodemod migrate examples/migrate/mask_crop.py --model build --inputs inputs
"""

import torch
from torch import nn


class Crop(nn.Module):
    def forward(self, points: torch.Tensor, valid_mask: torch.Tensor) -> torch.Tensor:
        n = len(points)
        return points[valid_mask] * n


def build() -> nn.Module:
    return Crop()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    points = torch.randn(6, 3, generator=generator)
    return points, points[:, 0] > 0
