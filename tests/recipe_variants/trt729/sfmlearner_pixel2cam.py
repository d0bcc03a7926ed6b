"""A pixel grid kept in a module global for the largest map seen: SfmLearner's ``pixel2cam``.

Reduced from ClementPinard/SfmLearner-Pytorch @ 59689e6045dbd8199bb8b7665cd61596e52108bc,
inverse_warp.py:5-40 (``pixel_coords = None``; ``set_id_grid`` assigns the global;
``if (pixel_coords is None) or pixel_coords.size(2) < h: set_id_grid(depth)``, then
``pixel_coords[..., :h, :w]``), written here in our own words around a small depth network.
"""

import torch
from torch import nn

grid = None


def make_grid(depth):
    global grid
    b, h, w = depth.size()
    rows = torch.arange(0, h).view(1, h, 1).expand(1, h, w).type_as(depth)
    cols = torch.arange(0, w).view(1, 1, w).expand(1, h, w).type_as(depth)
    ones = torch.ones(1, h, w).type_as(depth)
    grid = torch.stack((cols, rows, ones), dim=1)


def pixel2cam(depth, intrinsics_inv):
    global grid
    b, h, w = depth.size()
    if (grid is None) or grid.size(2) < h:
        make_grid(depth)
    coords = grid[..., :h, :w].expand(b, 3, h, w).reshape(b, 3, -1)
    return (intrinsics_inv @ coords).reshape(b, 3, h, w) * depth.unsqueeze(1)


class Lift(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.depth = nn.Conv2d(3, 1, 3, padding=1)
        self.register_buffer("k_inv", torch.linalg.inv(torch.tensor([[8.0, 0.0, 4.0], [0.0, 8.0, 3.0], [0.0, 0.0, 1.0]])))

    def forward(self, img):
        depth = torch.nn.functional.softplus(self.depth(img))[:, 0] + 0.1
        return pixel2cam(depth, self.k_inv.expand(img.shape[0], 3, 3))


def build() -> nn.Module:
    return Lift()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "b", 2: "h", 3: "w"}}
