"""A Darknet passthrough: a feature map reorganised into channels, an upsampled one beside it, then pooled.

Reduced from andy-yun/pytorch-0.4-yolov3 at 7928dc9820dd7cae8e9b0c56d1d43a69976996af, darknet.py:
``Reorg`` (lines 35-54) reads ``B, C, H, W`` one by one with ``x.data.size(0)`` ... ``x.data.size(3)``
and moves each 2x2 block into the channels with four ``view`` calls around ``transpose``;
``GlobalAvgPool2d`` (lines 56-66) pools over ``(H, W)`` read so and flattens with ``view(N, C)``
(``Upsample``, lines 19-33, reads its sizes alike). Here a YOLOv2-style passthrough: a strided
convolution beside the reorganised input, concatenated and pooled to a vector, and the coarse map
returned too. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Reorg(nn.Module):
    def __init__(self, stride: int = 2) -> None:
        super().__init__()
        self.stride = stride

    def forward(self, x):
        s = self.stride
        n = x.data.size(0)
        c = x.data.size(1)
        h = x.data.size(2)
        w = x.data.size(3)
        x = x.view(n, c, h // s, s, w // s, s).transpose(3, 4).contiguous()
        x = x.view(n, c, (h // s) * (w // s), s * s).transpose(2, 3).contiguous()
        x = x.view(n, c, s * s, h // s, w // s).transpose(1, 2).contiguous()
        return x.view(n, s * s * c, h // s, w // s)


class GlobalAvgPool2d(nn.Module):
    def forward(self, x):
        batch = x.data.size(0)
        channels = x.data.size(1)
        height = x.data.size(2)
        width = x.data.size(3)
        return F.avg_pool2d(x, (height, width)).view(batch, channels)


class Passthrough(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.reorg = Reorg()
        self.pool = GlobalAvgPool2d()

    def forward(self, x):
        coarse = self.down(x)
        merged = torch.cat([self.reorg(x), coarse], dim=1)
        return self.pool(merged), coarse


def build() -> nn.Module:
    return Passthrough().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
