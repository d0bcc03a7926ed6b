"""PointMLP's local grouper: k nearest neighbours, normalised by their mean and spread, pooled.

Reduced from ma-xu/pointMLP-pytorch @ 1ab7f04e88d2aeb8fd16921a2b2fc4fba950b6df,
classification_ModelNet40/models/pointmlp.py:116-127 (``knn_point``: ``_, group_idx =
torch.topk(sqrdists, nsample, dim=-1, largest=False, sorted=False)``) and ``LocalGrouper.forward``
(lines 154-182, ``normalize="center"``: the mean over the neighbours, one spread per sample, an
affine), followed by the max over the neighbours its next stage takes. Written here in our own
words; the centres are the first points instead of a CUDA farthest-point sampling.
"""

import torch
from torch import nn


def pairwise_sq(src, dst):
    return (src.unsqueeze(2) - dst.unsqueeze(1)).pow(2).sum(-1)


def gather_rows(points, idx):
    batch = torch.arange(points.shape[0]).view(-1, *([1] * (idx.dim() - 1)))
    return points[batch, idx, :]


class LocalGrouper(nn.Module):
    def __init__(self, groups: int = 5, kneighbors: int = 6, channels: int = 4) -> None:
        super().__init__()
        self.groups, self.kneighbors = groups, kneighbors
        self.alpha = nn.Parameter(torch.linspace(0.5, 1.5, channels + 3).view(1, 1, 1, -1))
        self.beta = nn.Parameter(torch.linspace(-0.2, 0.2, channels + 3).view(1, 1, 1, -1))

    def forward(self, xyz, points):
        b = xyz.shape[0]
        new_xyz = xyz[:, :self.groups]
        _, idx = torch.topk(pairwise_sq(new_xyz, xyz), self.kneighbors, dim=-1, largest=False, sorted=False)
        grouped = torch.cat([gather_rows(points, idx), gather_rows(xyz, idx)], dim=-1)
        mean = grouped.mean(dim=2, keepdim=True)
        std = (grouped - mean).reshape(b, -1).std(dim=-1, keepdim=True).view(b, 1, 1, 1)
        grouped = self.alpha * (grouped - mean) / (std + 1e-5) + self.beta
        return grouped.amax(dim=2)


def build() -> nn.Module:
    return LocalGrouper()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 14, 3, generator=generator), torch.randn(2, 14, 4, generator=generator)


DYNAMIC = {"xyz": {0: "batch", 1: "points"}, "points": {0: "batch", 1: "points"}}
