"""MONAI's VISTA3D point-prompt blending: a weight map is one minus the sum of Gaussian discs
around the clicks, its negative values are zeroed in place (``weight[weight < 0] = 0``: the
``x[x < 0] = 0`` form), and the automatic and point branches' logits are mixed with it.

Reduced from Project-MONAI/MONAI 1.6.1 (the PyPI release the second zoo unpacks),
monai/networks/nets/vista3d.py:277-302 (``VISTA3D.connected_components_combine``: ``weight = 1 -
convert_points_to_disc(...).sum(1, keepdims=True)``, ``weight[weight < 0] = 0`` and the two
in-place mixing lines through ``mapping_index``), written here in our own words; the discs are
Gaussians over a small 3-D grid computed here, and the mix covers the whole batch.
"""

import torch
from torch import nn


class BlendPoints(nn.Module):
    def __init__(self, size: int = 6, radius: float = 2.0) -> None:
        super().__init__()
        self.radius = radius
        axis = torch.arange(size, dtype=torch.float32)
        self.register_buffer("grid", torch.stack(torch.meshgrid(axis, axis, axis, indexing="ij"), -1))

    def forward(self, logits: torch.Tensor, point_logits: torch.Tensor, point_coords: torch.Tensor) -> torch.Tensor:
        distance = ((self.grid[None, None] - point_coords[:, :, None, None, None]) ** 2).sum(-1)
        discs = torch.exp(-distance / (2 * self.radius ** 2)) * 1.5
        weight = 1 - discs.sum(1, keepdims=True)
        weight[weight < 0] = 0
        return logits * weight + (1 - weight) * point_logits


def build() -> nn.Module:
    return BlendPoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    logits = torch.randn(2, 1, 6, 6, 6, generator=generator)
    point_logits = torch.randn(2, 1, 6, 6, 6, generator=generator)
    coords = torch.rand(2, 3, 3, generator=generator) * 5
    return logits, point_logits, coords


DYNAMIC = {"logits": {0: "batch"}, "point_logits": {0: "batch"}, "point_coords": {0: "batch", 1: "clicks"}}
