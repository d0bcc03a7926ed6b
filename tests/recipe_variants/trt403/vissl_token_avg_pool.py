"""Tokens averaged into one vector per image: the token axis moved last, pooled to 1 with ``AdaptiveAvgPool1d``,
squeezed with no axis, then a linear head.

Reduced from facebookresearch/vissl @ 09270ed25a6c2cf71263d955b64cbe076d34ac45,
vissl/models/trunks/vision_transformer.py:276-284 (``FeatAvgPool``: ``x = x.permute((0, 2, 1))`` then
``return self.avg_pool(x).squeeze()``), written here in our own words with a head after it.
"""

import torch
from torch import nn


class TokenPool(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool1d(1)

    def forward(self, tokens):
        return self.pool(tokens.permute((0, 2, 1))).squeeze()


class Trunk(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)
        self.pool = TokenPool()
        self.head = nn.Linear(8, 3)

    def forward(self, tokens):
        return self.head(self.pool(self.norm(tokens)))


def build() -> nn.Module:
    return Trunk()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 5, 8, generator=generator),)


DYNAMIC = {"tokens": {0: "batch", 1: "tokens"}}
