"""A channel shuffle of video features (batch, channels, frames, height, width) in a 3-D unit.

Reduced from the 3-D ShuffleNet V2 of okankop/Efficient-3DCNNs (7595100), models/shufflenetv2.py:
``channel_shuffle`` reads ``batchsize, num_channels, depth, height, width = x.data.size()`` and
regroups the channels of a 5-D tensor with ``view``, ``permute(0, 2, 1, 3, 4, 5)`` and ``view`` back
to ``num_channels``; the stride-1 ``InvertedResidual`` splits the channels in two halves with
``x.shape[1] // 2`` and shuffles the concatenation. Written here in our own words.
"""

import torch
from torch import nn


def channel_shuffle(x, groups):
    batchsize, num_channels, depth, height, width = x.data.size()
    x = x.view(batchsize, groups, num_channels // groups, depth, height, width)
    x = x.permute(0, 2, 1, 3, 4, 5).contiguous()
    return x.view(batchsize, num_channels, depth, height, width)


class VideoUnit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.branch = nn.Sequential(nn.Conv3d(4, 4, 1), nn.ReLU(), nn.Conv3d(4, 4, 3, padding=1, groups=4))

    def forward(self, x):
        x1 = x[:, :(x.shape[1] // 2)]
        x2 = x[:, (x.shape[1] // 2):]
        return channel_shuffle(torch.cat((x1, self.branch(x2)), 1), 2)


def build() -> nn.Module:
    return VideoUnit().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 3, 6, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
