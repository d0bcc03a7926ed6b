"""The mask of real nodes in a padded batch of graphs, as a running minimum of a bool row: PygHO.

Reduced from GraphPKU/PygHO at 4cd5a20adf84c76842e001b54570d053747c9470, pygho/hodata/MaData.py,
``to_dense_x`` (lines 109-149): a bool row of ``max_num_nodes + 1`` ones per graph, False written
at the graph's node count, and ``mask.cummin(dim=-1)[0][:, :-1]``, which keeps True up to that
count and False after it (a bool tensor; ``to_dense_tuplefeat`` does the same per axis with
``torch.cummin(tmask, dim=1)[0]``, line 211). Written here in our own words as a module over
node features already padded to ``(graphs, nodes, features)`` and the node counts; the gather
from the batch's pointers is left out.
"""

import torch
from torch import nn


class DenseNodeMask(nn.Module):
    def forward(self, x, num_nodes):
        batch_size, max_num_nodes = x.shape[0], x.shape[1]
        mask = torch.ones((batch_size, max_num_nodes + 1), dtype=torch.bool)
        mask[torch.arange(batch_size), num_nodes] = False
        mask = mask.cummin(dim=-1)[0][:, :-1]
        return x.masked_fill(~mask.unsqueeze(-1), 0.0)


def build() -> nn.Module:
    return DenseNodeMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(3, 6, 4, generator=generator), torch.tensor([6, 2, 0])


DYNAMIC = {"x": {0: "graphs", 1: "nodes"}, "num_nodes": {0: "graphs"}}
