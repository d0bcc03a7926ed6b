"""nanodet's ShuffleNetV2 unit: split the channels, convolve one half, concatenate, shuffle.

Reduced from RangiLyu/nanodet (be9b4a9), nanodet/model/backbone/shufflenetv2.py: ``channel_shuffle``
(lines 15-28) reads ``batchsize, num_channels, height, width = x.data.size()`` and regroups the
channels with two ``view`` calls around a ``transpose``; ``ShuffleV2Block.forward`` (stride 1,
lines 92-100) chunks the input in two, runs the second half through a pointwise/depthwise/pointwise
branch and shuffles the concatenation. Written here in our own words.
"""

import torch
from torch import nn


def channel_shuffle(x, groups):
    # type: (torch.Tensor, int) -> torch.Tensor
    batchsize, num_channels, height, width = x.data.size()
    per_group = num_channels // groups
    x = x.view(batchsize, groups, per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, -1, height, width)


class ShuffleUnit(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        half = channels // 2
        self.branch = nn.Sequential(nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.ReLU(),
                                    nn.Conv2d(half, half, 3, padding=1, groups=half, bias=False), nn.BatchNorm2d(half),
                                    nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.ReLU())

    def forward(self, x):
        x1, x2 = x.chunk(2, dim=1)
        out = torch.cat((x1, self.branch(x2)), dim=1)
        return channel_shuffle(out, 2)


def build() -> nn.Module:
    return ShuffleUnit().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 12, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
