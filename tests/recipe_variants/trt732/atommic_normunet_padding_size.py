"""ATOMMIC's normalized U-Net: when the module's ``padding_size`` is positive the image is padded
so that each size is one more than a number whose low bits are those of ``padding_size``
(``((w - 1) | self.padding_size) + 1``: the next multiple of 16 for the default 15), the padding
split with ``math.floor``/``math.ceil`` and removed after the U-Net. The mask comes from the
module's attribute, not a literal.

Reduced from wdika/atommic at commit 1abb819dd8b6b7422ea1ac79f69fe7d8c31acfe9,
atommic/collections/reconstruction/nn/unet_base/unet_block.py: ``NormUnet.pad`` (lines 98-112),
``NormUnet.unpad`` (lines 113-116) and ``NormUnet.forward`` (lines 118-145, the ``if
self.padding_size > 0`` guard). Written here in our own words: the U-Net is one convolution, the
normalization and the complex reshapes are left out.
"""

import math

import torch
from torch import nn


class NormUnet(nn.Module):
    def __init__(self, padding_size: int = 15) -> None:
        super().__init__()
        self.unet = nn.Conv2d(2, 2, 3, padding=1)
        self.padding_size = padding_size

    def pad(self, x: torch.Tensor):
        _, _, h, w = x.shape
        w_mult = ((w - 1) | self.padding_size) + 1
        h_mult = ((h - 1) | self.padding_size) + 1
        w_pad = [math.floor((w_mult - w) / 2), math.ceil((w_mult - w) / 2)]
        h_pad = [math.floor((h_mult - h) / 2), math.ceil((h_mult - h) / 2)]
        x = torch.nn.functional.pad(x, w_pad + h_pad)
        return x, (h_pad, w_pad, h_mult, w_mult)

    @staticmethod
    def unpad(x, h_pad, w_pad, h_mult, w_mult):
        return x[..., h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1]]

    def forward(self, x):
        if self.padding_size > 0:
            x, pad_sizes = self.pad(x)
        x = self.unet(x)
        if self.padding_size > 0:
            x = self.unpad(x, *pad_sizes)
        return x


def build() -> nn.Module:
    return NormUnet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 33, 18, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
