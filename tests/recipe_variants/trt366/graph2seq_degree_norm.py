"""A graph convolution that normalises each graph's adjacency by its degrees, one diagonal matrix a graph.

Reduced from hugochan/RL-based-Graph2Seq-for-NQG @ c08dfc5a208185b47a9189cd19a383dd7c1edd7e,
src/core/layers/graphs.py:157 (``static_gcn``: ``d_inv_sqrt = torch.pow(rowsum, -0.5)``, then
``torch.stack([torch.diagflat(d_inv_sqrt[i]) for i in range(d_inv_sqrt.shape[0])], dim=0)`` and
``D^-1/2 A D^-1/2``), in our own words: the adjacency is an input, one linear hop.
"""

import torch
from torch import nn

DYNAMIC = {"adj": {0: "batch"}, "nodes": {0: "batch"}}


class DegreeNormGCN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hop = nn.Linear(6, 6)

    def forward(self, adj, nodes):
        adj = torch.clamp(adj + adj.transpose(1, 2) + torch.eye(adj.shape[1], adj.shape[2]), max=1)
        degree = torch.sum(adj, -1)
        inverse_root = torch.pow(degree, -0.5)
        scale = torch.stack([torch.diagflat(inverse_root[i]) for i in range(inverse_root.shape[0])], dim=0)
        adj = torch.bmm(scale, torch.bmm(adj, scale))
        return torch.relu(self.hop(torch.bmm(adj, nodes)))


def build() -> nn.Module:
    return DegreeNormGCN()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return ((torch.rand(2, 5, 5, generator=generator) > 0.6).float(), torch.randn(2, 5, 6, generator=generator))
