"""HACNN's squeeze steps: channel attention and the hard-attention regressor pool ``x.size()[2:]``.

Reduced from boxmot 25.0.0 (the zoo's pinned copy), boxmot/reid/backbones/hacnn.py: ``ChannelAttn.forward``
(line 127: ``x = F.avg_pool2d(x, x.size()[2:])``, then two 1x1 convolutions), ``HardAttn.forward`` (line 172:
the same pooling viewed as ``(x.size(0), x.size(1))`` before a linear layer and ``tanh``) and the local branch of
``HACNN.forward`` (line 381: each region pooled with its own ``x_local_i.size()[2:]`` in a loop). The spatial
transformer and the soft attention are left out. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class ChannelAttn(nn.Module):
    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels // reduction, 1)
        self.conv2 = nn.Conv2d(channels // reduction, channels, 1)

    def forward(self, x):
        x = F.avg_pool2d(x, x.size()[2:])
        return self.conv2(torch.relu(self.conv1(x)))


class HardAttn(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.fc = nn.Linear(channels, 8)

    def forward(self, x):
        x = F.avg_pool2d(x, x.size()[2:]).view(x.size(0), x.size(1))
        return torch.tanh(self.fc(x)).view(-1, 4, 2)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.channel = ChannelAttn(8)
        self.hard = HardAttn(8)

    def forward(self, x):
        y = self.stem(x)
        y = y * torch.sigmoid(self.channel(y))
        theta = self.hard(y)
        regions = torch.chunk(y, 4, dim=2)
        pooled = []
        for region_idx in range(4):
            x_local_i = regions[region_idx]
            x_local_i = F.avg_pool2d(x_local_i, x_local_i.size()[2:]).view(x_local_i.size(0), -1)
            pooled.append(x_local_i)
        return torch.cat([torch.cat(pooled, 1), theta.flatten(1)], 1)


def build() -> nn.Module:
    return Attention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
