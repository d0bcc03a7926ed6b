"""The Set Transformer's multihead attention block: the heads are stacked along the batch and cut back by
the query batch.

Reduced from juho-lee/set_transformer@6fdae7f (modules.py:6-33, ``MAB``, its ``forward`` at lines
19-33; ``PMA`` at lines 55-63 calls it with learned seeds repeated to the batch). The block projects the
queries and keys, cuts the features into heads of ``dim_V // num_heads`` channels and stacks them along
the batch
(``torch.cat(Q.split(dim_split, 2), 0)``), attends, and merges the heads back with
``torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)`` (line 29): the receiver an expression, the size
read from the projected queries. Written here in our own words, with a pooling block of two seeds and a
linear head over the pooled set, and no layer norms.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class HeadedAttention(nn.Module):
    def __init__(self, dim_q: int, dim_k: int, dim_v: int, heads: int) -> None:
        super().__init__()
        self.dim_v, self.heads = dim_v, heads
        self.to_q, self.to_k, self.to_v = nn.Linear(dim_q, dim_v), nn.Linear(dim_k, dim_v), nn.Linear(dim_k, dim_v)
        self.out = nn.Linear(dim_v, dim_v)

    def forward(self, Q, K):
        Q = self.to_q(Q)
        K, V = self.to_k(K), self.to_v(K)
        width = self.dim_v // self.heads
        q = torch.cat(Q.split(width, 2), 0)
        k = torch.cat(K.split(width, 2), 0)
        v = torch.cat(V.split(width, 2), 0)
        weights = torch.softmax(q.bmm(k.transpose(1, 2)) / math.sqrt(self.dim_v), 2)
        merged = torch.cat((q + weights.bmm(v)).split(Q.size(0), 0), 2)
        return merged + F.relu(self.out(merged))


class SetPool(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2, seeds: int = 2, classes: int = 3) -> None:
        super().__init__()
        self.seeds = nn.Parameter(torch.randn(1, seeds, dim) * 0.5)
        self.embed = nn.Linear(4, dim)
        self.pool = HeadedAttention(dim, dim, dim, heads)
        self.head = nn.Linear(dim, classes)

    def forward(self, points):
        x = self.embed(points)
        pooled = self.pool(self.seeds.repeat(x.size(0), 1, 1), x)
        return self.head(pooled)


def build() -> nn.Module:
    return SetPool()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 4, generator=generator),)


DYNAMIC = {"points": {0: "batch", 1: "points"}}
