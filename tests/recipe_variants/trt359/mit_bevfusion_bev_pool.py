"""MIT HAN Lab's BEVFusion view transform: ``BaseTransform.bev_pool`` builds the batch-index column
with the comprehension spread over six lines by its formatter (``torch.cat(`` / ``[`` /
``torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long)`` / ``for ix in range(B)`` /
``]`` / ``)``), joins it to the voxel coordinates, drops the points outside the grid and hands the rest
to its ``bev_pool`` kernel, which sums the points of each voxel into a (B, C, Z, X, Y) grid; the height
axis is then folded into the channels.

Reduced from mit-han-lab/bevfusion at 326653dc06e0938edf1aae7d01efcd158ba83de5,
mmdet3d/models/vtransforms/base.py, ``BaseTransform.bev_pool`` (lines 141-176; the column at lines
151-156). Written here in our own words: the camera features and the geometry are the model's inputs,
the grid is 4 x 4 x 1 voxels, and the CUDA ``bev_pool`` kernel is a scatter-add of the points into the
flattened voxels of a channels-last grid, viewed and permuted to (B, C, Z, X, Y).
"""

import torch
from torch import nn


def bev_pool(x, geom_feats, B, D, H, W):
    C = x.shape[1]
    cell = ((geom_feats[:, 3] * D + geom_feats[:, 2]) * H + geom_feats[:, 0]) * W + geom_feats[:, 1]
    out = torch.zeros((B * D * H * W, C), device=x.device, dtype=x.dtype)
    out = out.scatter_add(0, cell.unsqueeze(1).expand(-1, C), x)
    return out.view(B, D, H, W, C).permute(0, 4, 1, 2, 3)


class BaseTransform(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dx = nn.Parameter(torch.tensor([1.0, 1.0, 2.0]), requires_grad=False)
        self.bx = nn.Parameter(torch.tensor([-1.5, -1.5, 0.0]), requires_grad=False)
        self.nx = nn.Parameter(torch.tensor([4, 4, 1]), requires_grad=False)

    def bev_pool(self, geom_feats, x):
        B, N, D, H, W, C = x.shape
        Nprime = B * N * D * H * W

        x = x.reshape(Nprime, C)

        geom_feats = ((geom_feats - (self.bx - self.dx / 2.0)) / self.dx).long()
        geom_feats = geom_feats.view(Nprime, 3)
        batch_ix = torch.cat(
            [
                torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long)
                for ix in range(B)
            ]
        )
        geom_feats = torch.cat((geom_feats, batch_ix), 1)

        kept = (
            (geom_feats[:, 0] >= 0)
            & (geom_feats[:, 0] < self.nx[0])
            & (geom_feats[:, 1] >= 0)
            & (geom_feats[:, 1] < self.nx[1])
            & (geom_feats[:, 2] >= 0)
            & (geom_feats[:, 2] < self.nx[2])
        )
        x = x[kept]
        geom_feats = geom_feats[kept]

        x = bev_pool(x, geom_feats, B, 1, 4, 4)

        final = torch.cat(x.unbind(dim=2), 1)

        return final

    def forward(self, x, geom):
        return self.bev_pool(geom, x)


def build() -> nn.Module:
    return BaseTransform().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(2, 2, 2, 2, 2, 3, generator=generator)
    geom = torch.rand(2, 2, 2, 2, 2, 3, generator=generator) * 5 - 2.5
    return x, geom


DYNAMIC = {"x": {0: "batch"}, "geom": {0: "batch"}}
