"""Heads: per-anchor scores squeezed out of a 1-channel conv (TRT401, ``--unsafe``)."""

import torch
from torch import nn


class ScoreHead(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.score = nn.Conv2d(channels, 1, 1)

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        return self.score(feats).flatten(2).squeeze(1)  # (batch, anchors)
