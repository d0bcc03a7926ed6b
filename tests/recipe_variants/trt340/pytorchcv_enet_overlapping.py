"""pytorchcv's ENet: 3x3 max pooling with stride 2 and padding 1 (overlapping windows), unpooled with a 2x2 kernel.

Reduced from pytorchcv 0.0.74 (the PyPI package), pytorchcv/models/enet.py: ``ENetMaxDownBlock``
(lines 20-53: ``self.pool = nn.MaxPool2d(kernel_size=kernel_size, stride=2, padding=padding,
return_indices=True)``, all by keyword, then ``x, max_indices = self.pool(x)`` and a zero
channel padding built from ``x.size()`` with the input's dtype and device) and ``ENetUpBlock``
(lines 54-83: a 1x1 convolution block, then ``self.unpool = nn.MaxUnpool2d(kernel_size=2)`` called
as ``self.unpool(x, max_indices)``, no output size). ENet builds them with ``kernel_size=3`` and
``padding=1``: the windows overlap, so one input element can be the maximum of two windows and its
index comes twice (with its one value). One block each way between two convolutions; the
convolution branch of the down unit is left out. Written here in our own words.
"""

import torch
from torch import nn


class ENetMaxDownBlock(nn.Module):
    def __init__(self, ext_channels, kernel_size, padding):
        super().__init__()
        self.ext_channels = ext_channels
        self.pool = nn.MaxPool2d(
            kernel_size=kernel_size,
            stride=2,
            padding=padding,
            return_indices=True)

    def forward(self, x):
        x, max_indices = self.pool(x)
        branch, _, height, width = x.size()
        pad = torch.zeros(branch, self.ext_channels, height, width, dtype=x.dtype, device=x.device)
        x = torch.cat((x, pad), dim=1)
        return x, max_indices


class ENetUpBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(in_channels, out_channels, kernel_size=1), nn.BatchNorm2d(out_channels))
        self.unpool = nn.MaxUnpool2d(kernel_size=2)

    def forward(self, x, max_indices):
        x = self.conv(x)
        x = self.unpool(x, max_indices)
        return x


class ENetDownUp(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, kernel_size=3, padding=1)
        self.down = ENetMaxDownBlock(ext_channels=4, kernel_size=3, padding=1)
        self.up = ENetUpBlock(8, 4)
        self.head = nn.Conv2d(4, 2, kernel_size=1)

    def forward(self, x):
        x, max_indices = self.down(self.stem(x))
        return self.head(self.up(x, max_indices))


def build() -> nn.Module:
    torch.manual_seed(0)
    return ENetDownUp().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
