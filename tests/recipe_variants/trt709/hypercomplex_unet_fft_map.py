"""Hypercomplex-UNet's Fourier map: the real and imaginary parts of an n-D FFT as two feature maps.

Reduced from Whethe/Hypercomplex-UNet at commit c79d8d9978e6a17c31d054441c527be55d49bc7d,
utils/utils_fourier.py: ``fft_map`` (lines 5-10), which takes ``fft_x = torch.fft.fftn(x)`` (no
``dim``: every axis, the batch and channels included) and returns ``fft_x.real`` and
``fft_x.imag``. The network that feeds both parts to a hypercomplex convolution is ours: the two
parts concatenated on the channels and one 1x1 convolution. Written here in our own words. Form
kept: the transform over all axes kept in a variable, then its ``.real`` and ``.imag`` attributes
each taken once.
"""

import torch
from torch import nn


def fft_map(x):
    fft_x = torch.fft.fftn(x)
    fft_x_real = fft_x.real
    fft_x_imag = fft_x.imag
    return fft_x_real, fft_x_imag


class FourierBranch(nn.Module):
    def __init__(self, channels: int = 3) -> None:
        super().__init__()
        self.mix = nn.Conv2d(2 * channels, channels, 1)

    def forward(self, x):
        real, imag = fft_map(x)
        return self.mix(torch.cat((real, imag), dim=1))


def build() -> nn.Module:
    return FourierBranch().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
