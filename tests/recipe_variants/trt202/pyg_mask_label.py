"""PyG's masked label embedding (UniMP): the labels of the masked nodes, embedded, added to
those nodes' features, ``x[mask] += self.emb(y[mask])``: a value with one row per selected node,
which ``torch.where`` cannot place. TRT202 reports it and leaves it (assumption (1) of its doc).

Reduced from pyg-team/pytorch_geometric @ 002e282401b8e3613d0fe29e392da5fa406bd998,
torch_geometric/nn/models/mask_label.py:43-52 (``MaskLabel.forward`` with ``method="add"``:
``x = torch.clone(x)``, ``x[mask] += self.emb(y[mask])``, ``return x``), written here in our own
words; the ``"concat"`` method is left out.
"""

import torch
from torch import Tensor, nn


class MaskLabel(nn.Module):
    def __init__(self, num_classes: int = 4, channels: int = 5) -> None:
        super().__init__()
        self.emb = nn.Embedding(num_classes, channels)

    def forward(self, x: Tensor, y: Tensor, scores: Tensor) -> Tensor:
        mask = scores > 0.5
        x = torch.clone(x)
        x[mask] += self.emb(y[mask])
        return x


def build() -> nn.Module:
    return MaskLabel()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(7, 5, generator=generator)
    y = torch.randint(0, 4, (7,), generator=generator)
    scores = torch.rand(7, generator=generator)
    return x, y, scores


DYNAMIC = {"x": {0: "nodes"}, "y": {0: "nodes"}, "scores": {0: "nodes"}}
