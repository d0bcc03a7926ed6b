"""A channel shuffle written as a module, after a grouped convolution.

Reduced from deep-learning-algorithm/LightWeightCNN, py/lib/models/shufflenet/channel_shuffle.py:
``ChannelShuffle.forward`` reads ``batchsize, num_channels, height, width = x.data.size()`` and
shuffles with ``self.groups`` (``view``, ``transpose``, ``contiguous``, ``view``); the repository's
ShuffleNet V1 unit puts it after a grouped pointwise convolution. Written here in our own words.
"""

import torch
from torch import nn


class ChannelShuffle(nn.Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, x):
        batchsize, num_channels, height, width = x.data.size()
        x = x.view(batchsize, self.groups, num_channels // self.groups, height, width)
        x = torch.transpose(x, 1, 2).contiguous()
        return x.view(batchsize, -1, height, width)


class GroupedUnit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(6, 12, 1, groups=3)
        self.shuffle = ChannelShuffle(3)
        self.depthwise = nn.Conv2d(12, 12, 3, padding=1, groups=12)

    def forward(self, x):
        return self.depthwise(self.shuffle(self.conv(x)))


def build() -> nn.Module:
    return GroupedUnit().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 10, 14, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
