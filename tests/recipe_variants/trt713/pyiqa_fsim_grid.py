"""IQA-PyTorch's own copy of the centred grid (``pyiqa.archs.func_util.get_meshgrid``, for its FSIM and
VSI): the same parity choice, with neither device nor dtype given (float32 on the CPU) and ``ij`` indexing.

Reduced from chaofengc/IQA-PyTorch @ 02337e264447c2f21b089e05aae2c27a5e015eed, pyiqa/archs/func_util.py
(``get_meshgrid``: ``if size[0] % 2:`` ``x = torch.arange(-(size[0] - 1) / 2, size[0] / 2) / (size[0] -
1)``, ``else:`` ``x = torch.arange(-size[0] / 2, size[0] / 2) / size[0]``, then ``size[1]``), written here
in our own words. Here the grid is built at the size of a feature map pooled by 2, so the parity is that
of ``floor(H / 2)``.
"""

from typing import Tuple

import torch
import torch.nn.functional as F
from torch import nn


def grid_at(size: Tuple[int, int]) -> Tuple[torch.Tensor, torch.Tensor]:
    if size[0] % 2:
        ys = torch.arange(-(size[0] - 1) / 2, size[0] / 2) / (size[0] - 1)
    else:
        ys = torch.arange(-size[0] / 2, size[0] / 2) / size[0]
    if size[1] % 2:
        xs = torch.arange(-(size[1] - 1) / 2, size[1] / 2) / (size[1] - 1)
    else:
        xs = torch.arange(-size[1] / 2, size[1] / 2) / size[1]
    return torch.meshgrid(ys, xs, indexing="ij")


class PooledWeighting(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feat = F.avg_pool2d(x, 2)
        ys, xs = grid_at((feat.size(-2), feat.size(-1)))
        return feat * (1 - ys.abs()) * (1 - xs.abs())


def build() -> nn.Module:
    return PooledWeighting()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 8, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
