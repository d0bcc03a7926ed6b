"""Heads stacked along the batch and cut back by it: GMAN's spatial attention (PyG Temporal).

Reduced from benedekrozemberczki/pytorch_geometric_temporal@adefe44 (2025-09-18),
torch_geometric_temporal/nn/attention/gman.py:217-245 (``SpatialAttention.forward``; the same
merge in ``TemporalAttention`` at :319 and ``TransformAttention`` at :474). The block reads the batch
size first (``batch_size = X.shape[0]``), joins the input with its spatio-temporal embedding,
projects queries, keys and values, cuts each along the channels into head-sized slices and stacks
them along the batch (``torch.cat(torch.split(query, self._K, dim=-1), dim=0)``), attends, and lays
the heads side by side again by cutting the batch-stacked result into parts of the batch size:
``torch.cat(torch.split(X, batch_size, dim=0), dim=-1)`` (line 242). Written here in our own words:
one linear layer per projection stands in for the library's stacks of 1x1 convolutions and batch
norms, and two heads of width 4. The parameters are annotated ``torch.FloatTensor``, which the code
alone does not count as a tensor, so the batch size is a size where the observed export warned.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SpatialAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self._K, self._d = 4, 4
        self.q, self.k, self.v = nn.Linear(16, 8), nn.Linear(16, 8), nn.Linear(16, 8)
        self.out = nn.Linear(8, 8)

    def forward(self, X: torch.FloatTensor, STE: torch.FloatTensor) -> torch.FloatTensor:
        batch_size = X.shape[0]
        X = torch.cat((X, STE), dim=-1)
        query, key, value = F.relu(self.q(X)), F.relu(self.k(X)), F.relu(self.v(X))
        # the heads go to the batch axis: (heads * batch, steps, nodes, width)
        query = torch.cat(torch.split(query, self._K, dim=-1), dim=0)
        key = torch.cat(torch.split(key, self._K, dim=-1), dim=0)
        value = torch.cat(torch.split(value, self._K, dim=-1), dim=0)
        attention = torch.softmax(torch.matmul(query, key.transpose(2, 3)) / self._d ** 0.5, dim=-1)
        X = torch.matmul(attention, value)
        X = torch.cat(torch.split(X, batch_size, dim=0), dim=-1)
        return F.relu(self.out(X))


def build() -> nn.Module:
    return SpatialAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 5, 8, generator=generator), torch.randn(2, 3, 5, 8, generator=generator))


DYNAMIC = {"X": {0: "batch", 1: "steps", 2: "nodes"}, "STE": {0: "batch", 1: "steps", 2: "nodes"}}
