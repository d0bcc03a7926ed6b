"""kornia's small super-resolution model: the luminance goes through the network, the two chroma
channels are upscaled with a bicubic ``scale_factor`` resize (``torch.nn.functional.interpolate``
written out in full, the factor an attribute).

Reduced from kornia 0.9.0 (the PyPI wheel the second zoo unpacks), kornia/models/small_sr.py,
``SmallSRNetWrapper.__init__`` lines 120-125 and ``forward`` lines 127-145 (RGB to YCbCr,
``ycbcr.split(1, dim=1)``, the network on Y, ``torch.nn.functional.interpolate(cb,
scale_factor=self.upscale_factor, mode="bicubic")`` and the same for Cr, concatenated and
converted back). Written here in our own words: a 1x1 convolution stands in for each colour
conversion and a convolution with ``PixelShuffle`` for ``SmallSRNet``.
"""

import torch
from torch import nn


class SmallSR(nn.Module):
    def __init__(self, upscale_factor: int = 3) -> None:
        super().__init__()
        self.rgb_to_ycbcr = nn.Conv2d(3, 3, kernel_size=1)
        self.ycbcr_to_rgb = nn.Conv2d(3, 3, kernel_size=1)
        self.model = nn.Sequential(nn.Conv2d(1, upscale_factor ** 2, kernel_size=3, padding=1),
                                   nn.PixelShuffle(upscale_factor))
        self.upscale_factor = upscale_factor

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        ycbcr = self.rgb_to_ycbcr(input)
        y, cb, cr = ycbcr.split(1, dim=1)
        out_y = self.model(y)
        out_cb = torch.nn.functional.interpolate(cb, scale_factor=self.upscale_factor, mode="bicubic")
        out_cr = torch.nn.functional.interpolate(cr, scale_factor=self.upscale_factor, mode="bicubic")
        out = torch.cat([out_y, out_cb, out_cr], dim=1)
        return self.ycbcr_to_rgb(out)


def build() -> nn.Module:
    return SmallSR()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}}
