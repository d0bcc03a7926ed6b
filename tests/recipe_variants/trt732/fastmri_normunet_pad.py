"""fastMRI's normalized U-Net: the image is padded to the next multiple of 16 on each side before
the U-Net and cut back after it. The multiple is found with a bitwise OR on each size
(``((w - 1) | 15) + 1``), the padding split in two with ``math.floor``/``math.ceil`` of half the
difference.

Reduced from facebookresearch/fastMRI at commit 91f2df4711adbb6d643df1810f234e4abcf5881b,
fastmri/models/varnet.py, ``NormUnet.pad`` (lines 84-98), ``NormUnet.unpad`` (lines 100-108) and
``NormUnet.forward`` (lines 110-126). Written here in our own words: the U-Net is one convolution,
the group normalization and the complex-channel reshapes are left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class NormUnet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.unet = nn.Conv2d(2, 2, 3, padding=1)

    def pad(self, x: torch.Tensor):
        _, _, h, w = x.shape
        w_mult = ((w - 1) | 15) + 1
        h_mult = ((h - 1) | 15) + 1
        w_pad = [math.floor((w_mult - w) / 2), math.ceil((w_mult - w) / 2)]
        h_pad = [math.floor((h_mult - h) / 2), math.ceil((h_mult - h) / 2)]
        return F.pad(x, w_pad + h_pad), (h_pad, w_pad, h_mult, w_mult)

    def unpad(self, x, h_pad, w_pad, h_mult, w_mult):
        return x[..., h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1]]

    def forward(self, x):
        x, pad_sizes = self.pad(x)
        x = self.unet(x)
        return self.unpad(x, *pad_sizes)


def build() -> nn.Module:
    return NormUnet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 20, 27, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
