"""OpenPCDet's SECOND IoU head: each rotated box's features pooled from the BEV map through an affine grid.

Reduced from open-mmlab/OpenPCDet at 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/roi_heads/second_head.py, ``SECONDHead`` (``__init__`` lines 37-42, ``roi_grid_pool``
lines 63-120): the head keeps ``F.affine_grid`` as a value, ``self.affine_grid =
partial(F.affine_grid, align_corners=True)`` (``F.affine_grid`` itself on torch before 1.3), and
calls it through the attribute, ``self.affine_grid(theta, torch.Size((rois.size(1),
spatial_features_2d.size(1), grid_size, grid_size)))``. For each sample, every box (x, y, z, dx,
dy, dz, heading) is mapped to feature-map coordinates, its rotation and extent written as the 2x3
matrix of normalized coordinates, and ``F.grid_sample`` (kept as a ``partial`` alike) reads a
``grid_size`` x ``grid_size`` patch per box; the patches of all samples are concatenated. The point
cloud range, voxel size and down-sampling ratio are constants here (the original reads them from its
configs), and the IoU layers after the pooling are left out. Written here in our own words.
"""

from functools import partial

import torch
import torch.nn.functional as F
from torch import nn


class RoIGridPool(nn.Module):
    def __init__(self, grid_size: int = 4, min_x: float = -8.0, min_y: float = -6.0, voxel: float = 0.5,
                 stride: int = 2) -> None:
        super().__init__()
        self.grid_size = grid_size
        self.min_x, self.min_y, self.cell = min_x, min_y, voxel * stride
        if torch.__version__ >= "1.3":
            self.affine_grid = partial(F.affine_grid, align_corners=True)
            self.grid_sample = partial(F.grid_sample, align_corners=True)
        else:
            self.affine_grid = F.affine_grid
            self.grid_sample = F.grid_sample

    def forward(self, rois, spatial_features_2d):
        height, width = spatial_features_2d.size(2), spatial_features_2d.size(3)
        pooled = []
        for b_id in range(rois.size(0)):
            x1 = (rois[b_id, :, 0] - rois[b_id, :, 3] / 2 - self.min_x) / self.cell
            x2 = (rois[b_id, :, 0] + rois[b_id, :, 3] / 2 - self.min_x) / self.cell
            y1 = (rois[b_id, :, 1] - rois[b_id, :, 4] / 2 - self.min_y) / self.cell
            y2 = (rois[b_id, :, 1] + rois[b_id, :, 4] / 2 - self.min_y) / self.cell
            cosa, sina = torch.cos(rois[b_id, :, 6]), torch.sin(rois[b_id, :, 6])
            theta = torch.stack((
                (x2 - x1) / (width - 1) * cosa, (x2 - x1) / (width - 1) * (-sina), (x1 + x2 - width + 1) / (width - 1),
                (y2 - y1) / (height - 1) * sina, (y2 - y1) / (height - 1) * cosa, (y1 + y2 - height + 1) / (height - 1),
            ), dim=1).view(-1, 2, 3).float()
            grid = self.affine_grid(
                theta, torch.Size((rois.size(1), spatial_features_2d.size(1), self.grid_size, self.grid_size)))
            features = spatial_features_2d[b_id].unsqueeze(0).expand(rois.size(1), spatial_features_2d.size(1),
                                                                     height, width)
            pooled.append(self.grid_sample(features, grid))
        return torch.cat(pooled, dim=0)


def build() -> nn.Module:
    return RoIGridPool().eval()


def boxes(generator: torch.Generator, batch: int, count: int) -> torch.Tensor:
    """Boxes inside the map: centre, size, height and heading."""
    centre = torch.rand(batch, count, 2, generator=generator) * torch.tensor([12.0, 9.0]) + torch.tensor([-7.0, -5.0])
    size = torch.rand(batch, count, 3, generator=generator) * 3 + 0.5
    heading = (torch.rand(batch, count, 1, generator=generator) - 0.5) * 6.3
    z = torch.randn(batch, count, 1, generator=generator)
    return torch.cat([centre, z, size, heading], dim=-1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return boxes(generator, 2, 5), torch.randn(2, 3, 12, 16, generator=generator)


DYNAMIC = {"rois": {1: "boxes"}, "spatial_features_2d": {2: "height", 3: "width"}}
