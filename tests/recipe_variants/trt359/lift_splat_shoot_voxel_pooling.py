"""Lift-Splat-Shoot's voxel pooling: every frustum point gets its voxel's integer coordinates and a
batch-index column, ``torch.cat([torch.full([Nprime//B, 1], ix, device=x.device, dtype=torch.long)
for ix in range(B)])`` (the call split over two lines), joined to the coordinates; the points outside
the grid are dropped, the rest sorted by voxel rank, summed per voxel by the cumulative-sum trick and
written into the bird's-eye-view grid, whose height axis is then folded into the channels.

Reduced from nv-tlabs/lift-splat-shoot at d74598cb51101e2143097ab270726a561f81f8fd, src/models.py,
``LiftSplatShoot.voxel_pooling`` (lines 200-242; the batch column at lines 210-211) and
``cumsum_trick`` (lines 21-29). Written here in our own words: the camera encoder and the geometry are
left out (the features and the points are the model's inputs), the grid is 4 x 4 x 1 voxels of one
metre, the autograd-free ``cumsum_trick`` is used (``use_quickcumsum`` off), and the grid is written
channels-last and then permuted to (B, C, Z, X, Y) (the TorchScript exporter takes only consecutive
index tensors in an assignment).
"""

import torch
from torch import nn


def cumsum_trick(x, geom_feats, ranks):
    x = x.cumsum(0)
    kept = torch.ones(x.shape[0], device=x.device, dtype=torch.bool)
    kept[:-1] = ranks[1:] != ranks[:-1]
    x, geom_feats = x[kept], geom_feats[kept]
    x = torch.cat((x[:1], x[1:] - x[:-1]))
    return x, geom_feats


class VoxelPooling(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dx = nn.Parameter(torch.tensor([1.0, 1.0, 2.0]), requires_grad=False)
        self.bx = nn.Parameter(torch.tensor([-1.5, -1.5, 0.0]), requires_grad=False)
        self.nx = nn.Parameter(torch.tensor([4, 4, 1]), requires_grad=False)

    def forward(self, x, geom_feats):
        B, N, D, H, W, C = x.shape
        Nprime = B*N*D*H*W

        x = x.reshape(Nprime, C)

        geom_feats = ((geom_feats - (self.bx - self.dx/2.)) / self.dx).long()
        geom_feats = geom_feats.view(Nprime, 3)
        batch_ix = torch.cat([torch.full([Nprime//B, 1], ix,
                             device=x.device, dtype=torch.long) for ix in range(B)])
        geom_feats = torch.cat((geom_feats, batch_ix), 1)

        kept = (geom_feats[:, 0] >= 0) & (geom_feats[:, 0] < self.nx[0])\
            & (geom_feats[:, 1] >= 0) & (geom_feats[:, 1] < self.nx[1])\
            & (geom_feats[:, 2] >= 0) & (geom_feats[:, 2] < self.nx[2])
        x = x[kept]
        geom_feats = geom_feats[kept]

        ranks = geom_feats[:, 0] * (self.nx[1] * self.nx[2] * B)\
            + geom_feats[:, 1] * (self.nx[2] * B)\
            + geom_feats[:, 2] * B\
            + geom_feats[:, 3]
        sorts = ranks.argsort()
        x, geom_feats, ranks = x[sorts], geom_feats[sorts], ranks[sorts]

        x, geom_feats = cumsum_trick(x, geom_feats, ranks)

        final = torch.zeros((B, 1, 4, 4, C), device=x.device)
        final[geom_feats[:, 3], geom_feats[:, 2], geom_feats[:, 0], geom_feats[:, 1]] = x
        final = final.permute(0, 4, 1, 2, 3)

        return torch.cat(final.unbind(dim=2), 1)


def build() -> nn.Module:
    return VoxelPooling().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(2, 1, 2, 2, 3, 3, generator=generator)
    geom = torch.rand(2, 1, 2, 2, 3, 3, generator=generator) * 5 - 2.5
    return x, geom


DYNAMIC = {"x": {0: "batch"}, "geom_feats": {0: "batch"}}
