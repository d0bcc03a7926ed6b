"""PyG's ``remove_isolated_nodes`` renumbers the nodes that some edge touches: a bool mask of those
nodes, then ``assoc[mask] = torch.arange(mask.sum(), device=...)`` gives each kept node its new
index, and the edges are read through ``assoc``.

Reduced from pyg-team/pytorch_geometric at commit 5c6461b2305ad068a6d61165b3c55852a11aaa41,
torch_geometric/utils/isolated.py, ``remove_isolated_nodes`` (lines 70-80: the mask of touched
nodes, ``assoc`` filled with -1, the range written through the mask, ``assoc[edge_index]``).
Written here in our own words: the self-loop bookkeeping and the edge attributes are left out,
and the number of nodes is the feature matrix's first axis (PyG's ``num_nodes``).
"""

import torch
from torch import nn


class RemoveIsolatedNodes(nn.Module):
    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        num_nodes = x.shape[0]
        mask = torch.zeros(num_nodes, dtype=torch.bool, device=edge_index.device)
        mask[edge_index.view(-1)] = 1
        assoc = torch.full((num_nodes,), -1, dtype=torch.long, device=mask.device)
        assoc[mask] = torch.arange(mask.sum(), device=assoc.device)
        return assoc[edge_index]


def build() -> nn.Module:
    return RemoveIsolatedNodes()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(7, 3, generator=generator), torch.tensor([[0, 2, 2, 5], [2, 0, 5, 2]])


DYNAMIC = {"x": {0: "nodes"}, "edge_index": {1: "edges"}}
