"""Points split into azimuth sectors around the sensor with ``torch.atan2``: OpenPCDet.

Reduced from open-mmlab/OpenPCDet at commit 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/backbones_3d/pfe/voxel_set_abstraction.py, ``sector_fps`` (lines 79-105): each
point's azimuth is ``torch.atan2(points[:, 1], points[:, 0]) + np.pi`` (line 89), divided by the
sector size, floored and clamped into a sector index; a loop over the sectors then samples each
one. Written here in our own words up to the sector index (the per-sector sampling loop and its
``.item()`` counts are a blocker outside this recipe). A point straight behind the sensor
(y = 0, x < 0) must fall in the last sector, not the first.
"""

import numpy as np
import torch
from torch import nn


class PointSectors(nn.Module):
    def __init__(self, num_sectors: int = 6) -> None:
        super().__init__()
        self.num_sectors = num_sectors

    def forward(self, points):
        sector_size = np.pi * 2 / self.num_sectors
        point_angles = torch.atan2(points[:, 1], points[:, 0]) + np.pi
        sector_idx = (point_angles / sector_size).floor().clamp(min=0, max=self.num_sectors)
        return sector_idx


def build() -> nn.Module:
    return PointSectors()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(7, 3, generator=generator),)


DYNAMIC = {"points": {0: "points"}}
