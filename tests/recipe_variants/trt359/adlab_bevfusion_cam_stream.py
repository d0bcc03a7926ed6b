"""ADLab-AutoDrive's BEVFusion camera stream (a Lift-Splat copy): the batch-index column, built with
``torch.cat([torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long) for ix in range(B)])``
over two lines, is moved once more with ``batch_ix.to(geom_feats.device)`` before it joins the voxel
coordinates; the grid keeps its height axis (``voxel_pooling`` returns (B, C, Z, X, Y)) and ``s2c``
folds it into the channels with a reshape and swaps the two ground axes.

Reduced from ADLab-AutoDrive/BEVFusion at fb4384ca05cae05be548dd96a0f940da70263cdb,
mmdet3d/models/detectors/cam_stream_lss.py, ``LiftSplatShoot.voxel_pooling`` (lines 272-310; the
column at lines 283-285) and ``s2c`` (lines 318-322). Written here in our own words: the camera encoder,
the geometry and the BEV encoder are left out (the features and the points are the model's inputs), the
grid is 4 x 4 x 2 voxels, the autograd-free cumulative-sum trick is used, and the grid is written
channels-last and then permuted (the TorchScript exporter takes only consecutive index tensors in an
assignment).
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


class CamStream(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dx = nn.Parameter(torch.tensor([1.0, 1.0, 1.0]), requires_grad=False)
        self.bx = nn.Parameter(torch.tensor([-1.5, -1.5, -0.5]), requires_grad=False)
        self.nx = nn.Parameter(torch.tensor([4, 4, 2]), requires_grad=False)

    def voxel_pooling(self, geom_feats, x):
        B, N, D, H, W, C = x.shape
        Nprime = B * N * D * H * W
        batch_size = x.shape[0]

        x = x.reshape(Nprime, C)

        geom_feats = ((geom_feats - (self.bx - self.dx / 2.)) / self.dx).long()
        geom_feats = geom_feats.view(Nprime, 3)
        batch_ix = torch.cat([torch.full([Nprime // B, 1], ix,
                                         device=x.device, dtype=torch.long) for ix in range(B)])
        batch_ix = batch_ix.to(geom_feats.device)
        geom_feats = torch.cat((geom_feats, batch_ix), 1)
        kept = (geom_feats[:, 0] >= 0) & (geom_feats[:, 0] < self.nx[0]) \
               & (geom_feats[:, 1] >= 0) & (geom_feats[:, 1] < self.nx[1]) \
               & (geom_feats[:, 2] >= 0) & (geom_feats[:, 2] < self.nx[2])
        x = x[kept]
        geom_feats = geom_feats[kept]
        ranks = geom_feats[:, 0] * (self.nx[1] * self.nx[2] * B) \
                + geom_feats[:, 1] * (self.nx[2] * B) \
                + geom_feats[:, 2] * B \
                + geom_feats[:, 3]
        sorts = ranks.argsort()
        x, geom_feats, ranks = x[sorts], geom_feats[sorts], ranks[sorts]
        x, geom_feats = cumsum_trick(x, geom_feats, ranks)

        final = torch.zeros((B, 2, 4, 4, C), device=x.device)
        final[geom_feats[:, 3], geom_feats[:, 2], geom_feats[:, 0], geom_feats[:, 1]] = x
        return final.permute(0, 4, 1, 2, 3)

    def s2c(self, x):
        B, C, H, W, L = x.shape
        bev = torch.reshape(x, (B, C*H, W, L))
        bev = bev.permute((0, 1, 3, 2))
        return bev

    def forward(self, x, geom):
        return self.s2c(self.voxel_pooling(geom, x))


def build() -> nn.Module:
    return CamStream().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(2, 1, 3, 2, 2, 3, generator=generator)
    geom = torch.rand(2, 1, 3, 2, 2, 3, generator=generator) * 5 - 2.5
    return x, geom


DYNAMIC = {"x": {0: "batch"}, "geom": {0: "batch"}}
