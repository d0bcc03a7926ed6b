"""PARADIS's cyclic padding of a latitude-longitude grid with poles: rows across each pole, half the globe away.

Reduced from Wx-Alliance-Alliance-Meteo/paradis_model at 47f3cce4d51b156b638702fe544662c1f44b736d,
model/padding.py: ``GeoCyclicPadding.forward`` (lines 11-39: ``batch_size, channels, height, width =
x.shape``, an even width asserted, ``middle_index = width // 2``, the rows next to each pole rolled by it
with ``torch.roll(top_source, shifts=middle_index, dims=3)`` and flipped, then the longitude padded
periodically by concatenation). Written here in our own words, between two convolutions. Form kept: the
shift is a local computed from the width unpacked from the shape, rolled along an axis given by its
positive index: the TorchScript export rolls by the traced example's half at every width.
"""

import torch
from torch import nn


class PolePadding(nn.Module):
    def __init__(self, pad_width: int) -> None:
        super().__init__()
        self.pad_width = pad_width

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.pad_width == 0:
            return x
        batch_size, channels, height, width = x.shape
        assert width % 2 == 0, "Number of longitude points must be even"
        middle_index = width // 2
        top_source = x[:, :, 1: self.pad_width + 1, :]
        bottom_source = x[:, :, -(self.pad_width + 1): -1, :]
        top_padding = torch.roll(top_source, shifts=middle_index, dims=3)
        bottom_padding = torch.roll(bottom_source, shifts=middle_index, dims=3)
        x = torch.cat([top_padding.flip(2), x, bottom_padding.flip(2)], dim=2)
        return torch.cat([x[:, :, :, -self.pad_width:], x, x[:, :, :, : self.pad_width]], dim=3)


class GlobeBlock(nn.Module):
    def __init__(self, channels: int = 4, pad: int = 1) -> None:
        super().__init__()
        self.mix = nn.Conv2d(channels, channels, 1)
        self.pad = PolePadding(pad)
        self.conv = nn.Conv2d(channels, channels, 2 * pad + 1)

    def forward(self, x):
        return self.conv(self.pad(self.mix(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return GlobeBlock().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 6, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "lat", 3: "lon"}}
