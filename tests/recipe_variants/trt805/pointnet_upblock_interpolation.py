"""A PointNet++ feature propagation: each dense point takes the inverse-distance-weighted mean of
its 3 nearest sparse points' features.

Reduced from kentechx/pointnet @ a7f9ad0267c53498d955c599237ed28b84015f4d, pointnet/pointnet2.py:57-61
(``knn``: ``idx = dists.topk(k, dim=-1, largest=False, sorted=False)[1]``, then the distances
gathered at ``idx``) and ``UpBlock.route`` (lines 159-170: weights ``1 / (dists + eps)``,
normalised, the neighbours' features summed with them). Written here in our own words with the
points laid out as [B, N, 3] instead of einops' rearranges, and the distances as the norm of the
differences (this torch's dynamo exporter stops on ``torch.cdist``).
"""

import torch
from torch import nn


def knn(src, query, k):
    dists = (query.unsqueeze(2) - src.unsqueeze(1)).norm(dim=-1)
    idx = dists.topk(k, dim=-1, largest=False, sorted=False)[1]
    return idx, dists.gather(-1, idx)


class UpBlock(nn.Module):
    def __init__(self, k: int = 3, eps: float = 1e-5) -> None:
        super().__init__()
        self.k, self.eps = k, eps

    def forward(self, sparse_x, sparse_xyz, dense_xyz):
        idx, dists = knn(sparse_xyz, dense_xyz, self.k)
        weights = 1.0 / (dists + self.eps)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        b, m, k = idx.shape
        flat = idx.reshape(b, m * k, 1).expand(-1, -1, sparse_x.shape[-1])
        neighbours = torch.gather(sparse_x, 1, flat).view(b, m, k, -1)
        return (weights.unsqueeze(-1) * neighbours).sum(dim=2)


def build() -> nn.Module:
    return UpBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 5, generator=generator), torch.rand(2, 8, 3, generator=generator),
            torch.rand(2, 20, 3, generator=generator))


DYNAMIC = {"sparse_x": {0: "batch", 1: "sparse"}, "sparse_xyz": {0: "batch", 1: "sparse"},
           "dense_xyz": {0: "batch", 1: "dense"}}
