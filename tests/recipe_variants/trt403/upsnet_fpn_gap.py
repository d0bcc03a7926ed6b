"""A global-context vector added to the top FPN level: pooled to 1x1, squeezed with no axis, a Linear, then
``view(-1, C, 1, 1)`` to broadcast over the map.

Reduced from uber-research/UPSNet @ aa8434e5a721ed217849607815304f68dfd7720a, upsnet/models/fpn.py:85
(``self.fpn_gap(F.adaptive_avg_pool2d(res5, (1, 1)).squeeze()).view(-1, self.feature_dim, 1, 1)``), written here
in our own words with one level and small channels.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TopLevel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.width = 6
        self.lateral = nn.Conv2d(10, self.width, 1)
        self.context = nn.Linear(10, self.width)
        self.smooth = nn.Conv2d(self.width, self.width, 3, padding=1)

    def forward(self, c5):
        glob = self.context(F.adaptive_avg_pool2d(c5, (1, 1)).squeeze()).view(-1, self.width, 1, 1)
        return self.smooth(self.lateral(c5) + glob)


def build() -> nn.Module:
    return TopLevel()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 10, 5, 6, generator=generator),)


DYNAMIC = {"c5": {0: "batch"}}
