"""``round`` of the smaller side scaled by a quality, then ``max`` with 1: a low-rank code's rank.

Reduced from pashtari/lrf @ fc3049ebe652ef629182bd3ca4ba340555c9d42d, lrf/compression/imf.py:115 and
:139 (``rank = max(round(min(x.shape[-2:]) * quality / 100), 1)``, the rank of the factorization that
codes the image), written here in our own words: the rank picks how many leading columns of a
per-row projection are kept. The TorchScript exporter stops at ``round`` (a traced size reaches it).
"""

import torch
from torch import nn


class LeadingComponents(nn.Module):
    def __init__(self, quality: float = 30.0) -> None:
        super().__init__()
        self.quality = quality

    def forward(self, x):
        rank = max(round(min(x.shape[-2:]) * self.quality / 100), 1)
        components = torch.cumsum(x, dim=-1)
        return components[..., :rank]


def build() -> nn.Module:
    return LeadingComponents()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
