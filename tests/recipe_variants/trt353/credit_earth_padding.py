"""CREDIT's "earth" boundary padding: the poles padded with the rows across the pole, half the globe away.

Reduced from NCAR/miles-credit at 5e14b83c9927edf0b67cddc4f2ed33d2630d17cf, credit/boundary_padding.py:
``TensorPadding._earth_padding`` (lines 50-71). Written here in our own words. Form kept: the
longitude axis is rolled by half its length, the shift read from the input's size through ``int``
(``shift_size = int(x.shape[-1] // 2)``; ``torch.roll(x, shifts=shift_size, dims=-1)``), the rows
nearest each pole are taken from the rolled field and flipped, and the longitude is then padded
circularly. A positive shift: the TorchScript export does not stop, it rolls by the traced example's
half at every width.
"""

import torch
import torch.nn.functional as F
from torch import nn


class EarthPadding(nn.Module):
    def __init__(self, pad_lat=(2, 2), pad_lon=(3, 3)) -> None:
        super().__init__()
        self.pad_lat = pad_lat
        self.pad_lon = pad_lon
        self.mix = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        x = self.mix(x)
        shift_size = int(x.shape[-1] // 2)
        rolled = torch.roll(x, shifts=shift_size, dims=-1)
        north = torch.flip(rolled[..., : self.pad_lat[0], :], (-2,))
        south = torch.flip(rolled[..., -self.pad_lat[1]:, :], (-2,))
        x = torch.cat([north, x, south], dim=-2)
        return F.pad(x, (self.pad_lon[0], self.pad_lon[1], 0, 0), mode="circular")


def build() -> nn.Module:
    torch.manual_seed(0)
    return EarthPadding().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 6, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "lat", 3: "lon"}}
