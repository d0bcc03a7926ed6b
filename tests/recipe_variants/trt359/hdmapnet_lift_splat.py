"""HDMapNet's camera branch (a Lift-Splat copy): the batch-index column is written on one line,
``torch.cat([torch.full([Nprime//B, 1], ix, device=x.device, dtype=torch.long) for ix in range(B)])``,
the points are summed per voxel by ``QuickCumsum`` (the default there) and the grid is laid out (B, C, Z, Y, X), x and y swapped against Lift-Splat-Shoot's.

Reduced from Tsinghua-MARS-Lab/HDMapNet at 7911227d45edb0226422083bc4bc452dc18e6399,
model/lift_splat.py, ``LiftSplat.voxel_pooling`` (lines 126-168; the batch column at line 137) and
``QuickCumsum`` (lines 25-51). Written here in our own words: the camera encoder and the geometry are
left out (the features and the points are the model's inputs), the grid is 4 x 4 x 1 voxels,
``QuickCumsum``'s forward is a plain function (the TorchScript exporter mistypes the boolean slice
assignment inside the ``autograd.Function``; its backward only changes gradients), and the grid is written channels-last and then permuted (the TorchScript exporter takes only consecutive index
tensors in an assignment).
"""

import torch
from torch import nn


def quick_cumsum(x, geom_feats, ranks):
    x = x.cumsum(0)
    kept = torch.ones(x.shape[0], device=x.device, dtype=torch.bool)
    kept[:-1] = ranks[1:] != ranks[:-1]
    x, geom_feats = x[kept], geom_feats[kept]
    x = torch.cat((x[:1], x[1:] - x[:-1]))
    return x, geom_feats


class LiftSplat(nn.Module):
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
        batch_ix = torch.cat([torch.full([Nprime//B, 1], ix, device=x.device, dtype=torch.long) for ix in range(B)])
        geom_feats = torch.cat((geom_feats, batch_ix), 1)  # x, y, z, b

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

        x, geom_feats = quick_cumsum(x, geom_feats, ranks)

        final = torch.zeros((B, 1, 4, 4, C), device=x.device)
        final[geom_feats[:, 3], geom_feats[:, 2], geom_feats[:, 1], geom_feats[:, 0]] = x
        final = final.permute(0, 4, 1, 2, 3)
        return torch.cat(final.unbind(dim=2), 1)


def build() -> nn.Module:
    return LiftSplat().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(2, 2, 2, 1, 3, 3, generator=generator)
    geom = torch.rand(2, 2, 2, 1, 3, 3, generator=generator) * 5 - 2.5
    return x, geom


DYNAMIC = {"x": {0: "batch"}, "geom_feats": {0: "batch"}}
