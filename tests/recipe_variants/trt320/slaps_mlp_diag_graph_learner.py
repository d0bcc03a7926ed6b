"""SLAPS' diagonal graph generator: node features pass through layers that scale each feature by
a learned weight, written as a product with a diagonal matrix (``input @ torch.diag(self.W)``);
the scaled features, normalized, give the similarity graph the classifier reads.

Reduced from BorealisAI/SLAPS-GNN, commit 489481fd3fa1ba0be6b1d42b40acec8b8858b7ec,
layers.py, ``Diag.forward`` lines 49-51 (the diag at line 50), used by graph_generator.py,
``MLP_Diag.internal_forward`` and the dense branch of ``MLP_Diag.forward`` (lines 71-98).
Written here in our own words: the k-nearest-neighbour sparsification (``top_k``) is left out,
the similarity goes through the "elu" non-linearity of utils.py ``apply_non_linearity``, and
the weights start away from one so the scaling shows.
"""

import torch
from torch import nn
from torch.nn import functional as F


class Diag(nn.Module):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.W = nn.Parameter(torch.linspace(0.5, 1.5, size))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        hidden = features @ torch.diag(self.W)
        return hidden


class MLPDiag(nn.Module):
    def __init__(self, size: int = 6, layers: int = 2, i: float = 6.0) -> None:
        super().__init__()
        self.layers = nn.ModuleList(Diag(size) for _ in range(layers))
        self.i = i

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        h = features
        for index, layer in enumerate(self.layers):
            h = layer(h)
            if index != len(self.layers) - 1:
                h = F.relu(h)
        embeddings = F.normalize(h, dim=1, p=2)
        similarities = embeddings @ embeddings.t()
        return F.elu(similarities * self.i - self.i) + 1


def build() -> nn.Module:
    return MLPDiag()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(7, 6, generator=generator),)


DYNAMIC = {"features": {0: "nodes"}}
