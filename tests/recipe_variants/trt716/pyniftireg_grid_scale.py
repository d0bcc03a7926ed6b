"""pyniftireg's pull-back warp: voxel coordinates scaled to ``grid_sample``'s [-1, 1] by one factor per axis.

Reduced from pyniftireg 0.1.1 (C. T. Lo), ``pyniftireg/grid.py``: ``identity`` (lines 27-32, an ``arange``
per axis of the displacement's own sizes, ``torch.meshgrid``), ``to_grid_sample`` (lines 35-46: ``scale =
torch.tensor([2.0 / max(n - 1, 1) for n in shape], dtype=coords.dtype, device=coords.device)`` over the
image's spatial sizes handed down as ``shape``, then the axes flipped to x/y order) and ``warp`` (lines
87-96). Written here in our own words, with a one-layer displacement head and the batch matching and field
checks left out. Form kept: a list comprehension over sizes a caller hands down, each turned into a float
through the built-in ``max`` (a one-voxel axis keeps the factor 2): the TorchScript export keeps the
example's factors, so at another size every sample lands elsewhere.
"""

import torch
import torch.nn.functional as F
from torch import nn


def identity(shape, dtype):
    axes = [torch.arange(n, dtype=dtype) for n in shape]
    return torch.stack(torch.meshgrid(*axes, indexing="ij"))[None]


def to_grid_sample(coords, shape):
    d = coords.shape[1]
    scale = torch.tensor([2.0 / max(n - 1, 1) for n in shape], dtype=coords.dtype, device=coords.device)
    return (coords * scale.view(1, d, 1, 1) - 1.0).flip(1).movedim(1, -1)


class Warp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x):
        disp = self.head(x) * 3.0
        coords = identity(disp.shape[2:], disp.dtype) + disp
        grid = to_grid_sample(coords, x.shape[2:])
        return F.grid_sample(x[:, 1:2], grid, mode="bilinear", padding_mode="border", align_corners=True)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Warp().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 2, 24, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
