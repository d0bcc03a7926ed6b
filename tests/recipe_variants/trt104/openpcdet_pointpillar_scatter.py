"""OpenPCDet's ``PointPillarScatter`` scatters pillar features into a BEV canvas per sample:
``batch_size = coords[:, 0].max().int().item() + 1``, then ``for batch_idx in range(batch_size)``
(a mask of the sample's pillars, their flat cell index, the canvas written through it), and the
canvases stacked and viewed as ``(batch_size, C, ny, nx)``.

Reduced from open-mmlab/OpenPCDet at commit 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/backbones_2d/map_to_bev/pointpillar_scatter.py, ``PointPillarScatter.forward``
(lines 14-36). Written here in our own words: the ``batch_dict`` in and out becomes two tensors
in and the canvas out, and the grid is small. The loop is in a method that reads ``self``'s
configuration: TRT104 reports it and has no rewrite (scripting a method would script its module).
"""

import torch
from torch import nn


class PointPillarScatter(nn.Module):
    def __init__(self, num_bev_features: int = 3, grid_size: tuple[int, int, int] = (4, 3, 1)) -> None:
        super().__init__()
        self.num_bev_features = num_bev_features
        self.nx, self.ny, self.nz = grid_size

    def forward(self, pillar_features: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        batch_spatial_features = []
        batch_size = coords[:, 0].max().int().item() + 1
        for batch_idx in range(batch_size):
            spatial_feature = torch.zeros(self.num_bev_features, self.nz * self.nx * self.ny,
                                          dtype=pillar_features.dtype, device=pillar_features.device)
            batch_mask = coords[:, 0] == batch_idx
            this_coords = coords[batch_mask, :]
            indices = this_coords[:, 1] + this_coords[:, 2] * self.nx + this_coords[:, 3]
            indices = indices.type(torch.long)
            pillars = pillar_features[batch_mask, :].t()
            spatial_feature[:, indices] = pillars
            batch_spatial_features.append(spatial_feature)
        batch_spatial_features = torch.stack(batch_spatial_features, 0)
        return batch_spatial_features.view(batch_size, self.num_bev_features * self.nz, self.ny, self.nx)


def build() -> nn.Module:
    return PointPillarScatter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two samples: (sample, z, y, x) of five pillars
    coords = torch.tensor([[0, 0, 0, 1], [0, 0, 2, 3], [1, 0, 1, 0], [1, 0, 0, 2], [1, 0, 2, 2]])
    return torch.randn(5, 3, generator=generator), coords


DYNAMIC = {"pillar_features": {0: "pillars"}, "coords": {0: "pillars"}}
