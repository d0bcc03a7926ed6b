"""IEDGNN's dynamic graph: a learned distance graph is masked by the sensors' prior adjacency and
row-normalized by its degree, ``remove_nan_inf(1 / degree)``, which zeroes the reciprocal of an
isolated node's zero degree with ``torch.where(torch.isnan(t), ...)`` and
``torch.where(torch.isinf(t), torch.zeros_like(t), t)`` (the function form, in a helper of its own
module).

Reduced from syt2004/Inhert-Exogenous-Decoupling-in-GNN at commit
cd4cabeca9d373ee4a0d810f638041adac51a2a4: cal_adj.py, ``remove_nan_inf`` lines 3-6 (the ``isinf``
test at line 5); Normalize.py, ``Normalizer._norm`` lines 11-16 (degree, the guarded reciprocal,
``diag_embed`` and ``bmm``) and ``Normalizer.forward`` lines 18-19; Dynamic_graph.py,
``DynamicGraphConstructor.forward`` (distance, mask, normalization). Written here in our own
words: one modality, a scaled dot product of projected node features stands in for the distance
function, the prior adjacency is an input multiplied in, and the product of ``diag_embed(degree)``
with the graph is written as the row scaling it is (``torch.diag_embed`` does not export with the
TorchScript exporter in torch 2.13: no ONNX symbolic).
"""

import torch
from torch import nn


def remove_nan_inf(tensor: torch.Tensor) -> torch.Tensor:
    tensor = torch.where(torch.isnan(tensor), torch.zeros_like(tensor), tensor)
    tensor = torch.where(torch.isinf(tensor), torch.zeros_like(tensor), tensor)
    return tensor


class DynamicGraph(nn.Module):
    def __init__(self, features: int = 4, hidden: int = 6) -> None:
        super().__init__()
        self.query = nn.Linear(features, hidden)
        self.key = nn.Linear(features, hidden)

    def forward(self, nodes: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
        graph = torch.relu(self.query(nodes) @ self.key(nodes).transpose(1, 2))
        graph = graph * prior
        degree = torch.sum(graph, dim=2)
        degree = remove_nan_inf(1 / degree)
        return degree.unsqueeze(-1) * graph


def build() -> nn.Module:
    return DynamicGraph()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    nodes = torch.randn(2, 5, 4, generator=generator)
    prior = (torch.rand(2, 5, 5, generator=generator) > 0.4).float()
    prior[:, 1] = 0.0  # an isolated sensor: zero degree
    return nodes, prior


DYNAMIC = {"nodes": {0: "batch", 1: "sensors"}, "prior": {0: "batch", 1: "sensors", 2: "sensors"}}
