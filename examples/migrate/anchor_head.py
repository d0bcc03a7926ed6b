"""The model behind ``wrapper.py``: an objectness head squeezing its single channel."""

import torch
from torch import nn


class AnchorHead(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.objectness = nn.Conv2d(channels, 1, 1)

    def forward(self, feats: torch.Tensor) -> torch.Tensor:
        logits = self.objectness(feats).flatten(2)  # (batch, 1, anchors)
        return logits.squeeze(1).sigmoid()  # (batch, anchors)
