"""Backbone: adds a channel axis with ``unsqueeze`` (TRT402 indexes with ``None`` instead)."""

import torch
from torch import nn


class TinyBackbone(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU())

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.conv(image.unsqueeze(1))  # (batch, H, W) grey image -> (batch, 1, H, W)
