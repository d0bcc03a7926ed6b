"""PyG's ``bipartite_subgraph`` (and ``subgraph``) relabels the kept edges and nodes with
``edge_idx[edge_mask] = torch.arange(edge_mask.sum().item(), device=device)``: the count is read
into Python with ``.item()`` before the range is built.

Reduced from pyg-team/pytorch_geometric at commit 5c6461b2305ad068a6d61165b3c55852a11aaa41,
torch_geometric/utils/_subgraph.py (line 493, the edge numbering, and line 500, the node
numbering with ``node_mask.sum().item()``). Written here in our own words: an edge is kept
when both of its ends are in the node mask, and the relabelled edge numbers are the output.
TRT702 takes the ``.item()`` (the range gets the 0-d count), then TRT714 the count.
"""

import torch
from torch import nn


class SubgraphRelabel(nn.Module):
    def forward(self, edge_index: torch.Tensor, node_mask: torch.Tensor) -> torch.Tensor:
        device = edge_index.device
        edge_mask = node_mask[edge_index[0]] & node_mask[edge_index[1]]
        edge_idx = torch.full((edge_mask.size(0),), -1, dtype=torch.long, device=device)
        edge_idx[edge_mask] = torch.arange(edge_mask.sum().item(), device=device)
        return edge_idx


def build() -> nn.Module:
    return SubgraphRelabel()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]]), torch.tensor([True, True, False, True, True])


DYNAMIC = {"edge_index": {1: "edges"}, "node_mask": {0: "nodes"}}
