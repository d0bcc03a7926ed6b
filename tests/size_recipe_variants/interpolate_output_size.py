"""``int(math.floor(size * scale))``: Deformable DETR's interpolate computes its output size.

Reduced from fundamentalvision/Deformable-DETR @ 11169a60c33333af00a4849f1808023eba96a931,
util/misc.py:43-56 (``_output_size``: ``[int(math.floor(input.size(i + 2) * scale_factors[i]))
for i in range(dim)]``), written here in our own words as a module's resize.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def output_size(input, scale_factor):
    scale_factors = [scale_factor, scale_factor]
    return [int(math.floor(input.size(i + 2) * scale_factors[i])) for i in range(2)]


class Resize(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=output_size(x, 1.5), mode="nearest")


def build() -> nn.Module:
    return Resize()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 4, 6, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
