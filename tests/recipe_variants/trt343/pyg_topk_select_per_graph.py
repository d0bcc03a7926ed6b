"""PyG's top-k node selection (Graph U-Net / SAG pooling): the best-scored share of each graph's nodes.

Reduced from pyg-team/pytorch_geometric at 5c6461b2305ad068a6d61165b3c55852a11aaa41,
torch_geometric/nn/pool/select/topk.py, ``topk`` (lines 14-45; the stable sort at line 38): the
nodes of a mini-batch of graphs are sorted by score, descending, with ``torch.sort(x.view(-1),
descending=True)``; their graph ids are taken in that order and sorted again with ``torch.sort(batch,
descending=False, stable=True)``, so each graph's nodes come together and keep the score order
inside the graph (many ties: every node of one graph has the same id); the first
``ceil(ratio * num_nodes)`` of each graph are kept, by their place after the graph's start. The
node scores come from a linear layer and ``tanh`` here (``SelectTopK``'s projection), and the node
counts from comparing the ids with the graph numbers (the original scatters ones). Written here in
our own words.
"""

import torch
from torch import nn


class TopKSelect(nn.Module):
    def __init__(self, channels: int = 4, graphs: int = 3, ratio: float = 0.5) -> None:
        super().__init__()
        self.project = nn.Linear(channels, 1)
        self.graphs = graphs
        self.ratio = ratio

    def forward(self, x, batch):
        score = torch.tanh(self.project(x)).view(-1)
        num_nodes = (batch.unsqueeze(1) == torch.arange(self.graphs)).sum(0)
        k = (self.ratio * num_nodes.to(score.dtype)).ceil().to(torch.long)
        score, score_perm = torch.sort(score, descending=True)
        batch = batch[score_perm]
        batch, batch_perm = torch.sort(batch, descending=False, stable=True)
        place = torch.arange(score.size(0))
        start = torch.cumsum(num_nodes, 0) - num_nodes
        keep = place - start[batch] < k[batch]
        return score_perm[batch_perm[keep]]


def build() -> nn.Module:
    torch.manual_seed(0)
    return TopKSelect().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(11, 4, generator=generator), torch.randint(0, 3, (11,), generator=generator)


DYNAMIC = {"x": {0: "nodes"}, "batch": {0: "nodes"}}
