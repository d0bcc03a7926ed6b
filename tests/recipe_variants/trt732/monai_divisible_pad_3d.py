"""MONAI's complex U-Net for MRI reconstruction: before the U-Net each spatial size is padded to
the next multiple of ``k`` (the module's ``pad_factor``) with ``((w - 1) | (k - 1)) + 1``, for a
2-D or a 3-D image chosen by the input's rank, the padding split by a ``floor_ceil`` helper; after
it the padding is cut off again.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/apps/reconstruction/networks/nets/utils.py:
``divisible_pad_t`` (lines 169-228; the 3-D branch, lines 214-223), ``inverse_divisible_pad_t``
(lines 231-253) and ``floor_ceil`` (lines 256-266); the caller is ``ComplexUnet.forward``
(monai/apps/reconstruction/networks/nets/complex_unet.py lines 93-115). Written here in our own
words: the U-Net is one 3-D convolution; the complex reshapes and the normalization are left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def floor_ceil(n):
    return math.floor(n), math.ceil(n)


def divisible_pad_t(x: torch.Tensor, k: int = 16):
    if len(x.shape) == 4:
        b, c, h, w = x.shape
        w_mult = ((w - 1) | (k - 1)) + 1
        h_mult = ((h - 1) | (k - 1)) + 1
        w_pad = floor_ceil((w_mult - w) / 2)
        h_pad = floor_ceil((h_mult - h) / 2)
        x = F.pad(x, w_pad + h_pad)
        d_mult = -1
        d_pad = (-1, -1)
    elif len(x.shape) == 5:
        b, c, h, w, d = x.shape
        w_mult = ((w - 1) | (k - 1)) + 1
        h_mult = ((h - 1) | (k - 1)) + 1
        d_mult = ((d - 1) | (k - 1)) + 1
        w_pad = floor_ceil((w_mult - w) / 2)
        h_pad = floor_ceil((h_mult - h) / 2)
        d_pad = floor_ceil((d_mult - d) / 2)
        x = F.pad(x, d_pad + w_pad + h_pad)
    else:
        raise ValueError(f"only 2-D and 3-D images, got shape {x.shape}")
    return x, (h_pad, w_pad, d_pad, h_mult, w_mult, d_mult)


def inverse_divisible_pad_t(x, pad_sizes):
    h_pad, w_pad, d_pad, h_mult, w_mult, d_mult = pad_sizes
    if len(x.shape) == 4:
        return x[..., h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1]]
    return x[..., h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1], d_pad[0] : d_mult - d_pad[1]]


class ComplexUnet(nn.Module):
    def __init__(self, pad_factor: int = 8) -> None:
        super().__init__()
        self.unet = nn.Conv3d(2, 2, 3, padding=1)
        self.pad_factor = pad_factor

    def forward(self, x):
        x, padding_sizes = divisible_pad_t(x, k=self.pad_factor)
        x = self.unet(x)
        return inverse_divisible_pad_t(x, padding_sizes)


def build() -> nn.Module:
    return ComplexUnet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 9, 6, 13, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width", 4: "depth"}}
