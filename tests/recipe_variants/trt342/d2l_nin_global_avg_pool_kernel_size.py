"""Dive into Deep Learning (PyTorch edition)'s NiN: its head averages each class map with ``GlobalAvgPool2d``.

Reduced from ShusenTang/Dive-into-DL-PyTorch at 09c8bacc08599eb86236551454ba43b82cb91498,
code/d2lzh_pytorch/utils.py, ``GlobalAvgPool2d`` (lines 276-281; the pooling at line 281):
``F.avg_pool2d(x, kernel_size=x.size()[2:])``, the window passed by keyword as the input's own height
and width (``torch.Size`` sliced), which the book's NiN (chapter 5.8), GoogLeNet and ResNet heads put
before ``FlattenLayer``. The NiN blocks (a convolution, then two 1x1 convolutions, each with ReLU) are
two and narrower here, with one max pooling between them, and the last block gives one map per
class. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GlobalAvgPool2d(nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=x.size()[2:])


def nin_block(in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding), nn.ReLU(),
                         nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU(),
                         nn.Conv2d(out_channels, out_channels, kernel_size=1), nn.ReLU())


class NiN(nn.Module):
    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.features = nn.Sequential(nin_block(3, 8, kernel_size=3, stride=1, padding=1),
                                      nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
                                      nin_block(8, classes, kernel_size=3, stride=1, padding=1))
        self.pool = GlobalAvgPool2d()

    def forward(self, x):
        return self.pool(self.features(x)).flatten(1)


def build() -> nn.Module:
    return NiN().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
