"""BEVDet's ``ViewTransformerLiftSplatShoot``: the depth net lifts the image features into a frustum
volume (a softmax over depth times the context channels), and ``voxel_pooling`` builds the batch-index
column with ``torch.cat([torch.full([Nprime // B, 1], ix, device=x.device, dtype=torch.long) for ix in
range(B)])`` over two lines, joins it to the voxel coordinates and (``use_bev_pool`` off) sorts the
points by voxel rank, sums them per voxel with ``QuickCumsum`` and writes the grid, its voxel counts
held in a float parameter cast with ``nx = self.nx.to(torch.long)``.

Reduced from HuangJunJie2017/BEVDet at 1bacecb07bce1d6731fafbda1e332c88ae87118b,
mmdet3d/models/necks/view_transformer.py, ``ViewTransformerLiftSplatShoot.voxel_pooling`` (lines 140-188;
the column at lines 150-151) and ``forward`` (the lift). Written here in our own words: the points'
geometry is an input, the grid is 4 x 4 x 1 voxels, the point drop of training is left out,
``QuickCumsum``'s forward is a plain function (the TorchScript exporter mistypes the boolean slice
assignment inside the ``autograd.Function``), the CUDA
``bev_pool`` branch is not taken, and the grid is written channels-last and then permuted (the
TorchScript exporter takes only consecutive index tensors in an assignment). The same column in the
file's ``voxel_pooling_accelerated`` (lines 202-203) is not kept.
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


class ViewTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.dx = nn.Parameter(torch.tensor([1.0, 1.0, 2.0]), requires_grad=False)
        self.bx = nn.Parameter(torch.tensor([-1.5, -1.5, 0.0]), requires_grad=False)
        self.nx = nn.Parameter(torch.tensor([4.0, 4.0, 1.0]), requires_grad=False)
        self.D, self.numC_Trans = 2, 3
        self.depthnet = nn.Conv2d(4, self.D + self.numC_Trans, kernel_size=1, padding=0)

    def voxel_pooling(self, geom_feats, x):
        B, N, D, H, W, C = x.shape
        Nprime = B * N * D * H * W
        nx = self.nx.to(torch.long)
        x = x.reshape(Nprime, C)

        geom_feats = ((geom_feats - (self.bx - self.dx / 2.)) / self.dx).long()
        geom_feats = geom_feats.view(Nprime, 3)
        batch_ix = torch.cat([torch.full([Nprime // B, 1], ix,
                                         device=x.device, dtype=torch.long) for ix in range(B)])
        geom_feats = torch.cat((geom_feats, batch_ix), 1)

        kept = (geom_feats[:, 0] >= 0) & (geom_feats[:, 0] < nx[0]) \
               & (geom_feats[:, 1] >= 0) & (geom_feats[:, 1] < nx[1]) \
               & (geom_feats[:, 2] >= 0) & (geom_feats[:, 2] < nx[2])
        x = x[kept]
        geom_feats = geom_feats[kept]

        ranks = geom_feats[:, 0] * (nx[1] * nx[2] * B) \
                + geom_feats[:, 1] * (nx[2] * B) \
                + geom_feats[:, 2] * B \
                + geom_feats[:, 3]
        sorts = ranks.argsort()
        x, geom_feats, ranks = x[sorts], geom_feats[sorts], ranks[sorts]
        x, geom_feats = quick_cumsum(x, geom_feats, ranks)

        final = torch.zeros((B, 1, 4, 4, C), device=x.device)
        final[geom_feats[:, 3], geom_feats[:, 2], geom_feats[:, 1], geom_feats[:, 0]] = x
        final = final.permute(0, 4, 1, 2, 3)
        return torch.cat(final.unbind(dim=2), 1)

    def forward(self, x, geom):
        B, N, C, H, W = x.shape
        x = x.view(B * N, C, H, W)
        x = self.depthnet(x)
        depth = x[:, :self.D].softmax(dim=1)
        img_feat = x[:, self.D:(self.D + self.numC_Trans)]
        volume = depth.unsqueeze(1) * img_feat.unsqueeze(2)
        volume = volume.view(B, N, self.numC_Trans, self.D, H, W)
        volume = volume.permute(0, 1, 3, 4, 5, 2)
        return self.voxel_pooling(geom, volume)


def build() -> nn.Module:
    return ViewTransformer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(2, 2, 4, 2, 3, generator=generator)
    geom = torch.rand(2, 2, 2, 2, 3, 3, generator=generator) * 5 - 2.5
    return x, geom


DYNAMIC = {"x": {0: "batch"}, "geom": {0: "batch"}}
