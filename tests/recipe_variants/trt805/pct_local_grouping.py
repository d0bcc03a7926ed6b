"""PCT's neighbour grouping: the k nearest points of each centre, centred, then a max over them.

Reduced from Strawberry-Eat-Mango/PCT_Pytorch @ 0199a3b8c89274aeeebb5634c82a47573c8be492,
util.py:97-108 (``knn_point``: ``torch.topk(sqrdists, nsample, dim = -1, largest=False,
sorted=False)``) with ``sample_and_group`` (util.py:110-138) and ``Local_op`` (model.py:6-23,
a pointwise convolution and a max over the neighbours). Written here in our own words; the
centres are the first points instead of a CUDA farthest-point sampling.
"""

import torch
from torch import nn


def square_distance(src, dst):
    return torch.sum(src ** 2, -1).unsqueeze(-1) + torch.sum(dst ** 2, -1).unsqueeze(-2) - 2 * src @ dst.transpose(1, 2)


def knn_point(nsample, xyz, new_xyz):
    sqrdists = square_distance(new_xyz, xyz)
    _, group_idx = torch.topk(sqrdists, nsample, dim=-1, largest=False, sorted=False)
    return group_idx


def index_points(points, idx):
    batch = torch.arange(points.shape[0]).view(-1, *([1] * (idx.dim() - 1)))
    return points[batch, idx, :]


class LocalGrouping(nn.Module):
    def __init__(self, centres: int = 6, nsample: int = 4, channels: int = 5) -> None:
        super().__init__()
        self.centres, self.nsample = centres, nsample
        self.conv = nn.Linear(2 * channels, 8)

    def forward(self, xyz, feats):
        new_xyz, new_feats = xyz[:, :self.centres], feats[:, :self.centres]
        idx = knn_point(self.nsample, xyz, new_xyz)
        grouped = index_points(feats, idx) - new_feats.unsqueeze(2)
        grouped = torch.cat([grouped, new_feats.unsqueeze(2).expand(-1, -1, self.nsample, -1)], -1)
        return torch.relu(self.conv(grouped)).max(dim=2).values


def build() -> nn.Module:
    return LocalGrouping()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 16, 3, generator=generator), torch.randn(2, 16, 5, generator=generator)


DYNAMIC = {"xyz": {0: "batch", 1: "points"}, "feats": {0: "batch", 1: "points"}}
