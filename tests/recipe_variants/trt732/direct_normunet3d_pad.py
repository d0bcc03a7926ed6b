"""DIRECT's normalized 3-D U-Net: a volume is padded to the next multiple of 16 along depth,
height and width (``z_mult = ((z - 1) | 15) + 1`` and the same for ``h`` and ``w``, the sizes
unpacked from the shape) before the U-Net, the padding split with ``math.floor``/``math.ceil``
and removed after it. ``pad`` and ``unpad`` are static methods.

Reduced from NKI-AI/direct at commit 50b9704d2d7aa8eede763ced92e71b69baa8189d,
direct/nn/unet/unet_3d.py: ``NormUnetModel3d.pad`` (lines 327-354), ``NormUnetModel3d.unpad``
(lines 355-393) and ``NormUnetModel3d.forward`` (lines 395-415). Written here in our own words:
the U-Net is one 3-D convolution and the group normalization is left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class NormUnetModel3d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.unet3d = nn.Conv3d(1, 1, 3, padding=1)

    @staticmethod
    def pad(input_data: torch.Tensor):
        _, _, z, h, w = input_data.shape
        w_mult = ((w - 1) | 15) + 1
        h_mult = ((h - 1) | 15) + 1
        z_mult = ((z - 1) | 15) + 1
        w_pad = [math.floor((w_mult - w) / 2), math.ceil((w_mult - w) / 2)]
        h_pad = [math.floor((h_mult - h) / 2), math.ceil((h_mult - h) / 2)]
        z_pad = [math.floor((z_mult - z) / 2), math.ceil((z_mult - z) / 2)]
        output = F.pad(input_data, w_pad + h_pad + z_pad)
        return output, (h_pad, w_pad, z_pad, h_mult, w_mult, z_mult)

    @staticmethod
    def unpad(input_data, h_pad, w_pad, z_pad, h_mult, w_mult, z_mult):
        return input_data[..., z_pad[0] : z_mult - z_pad[1], h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1]]

    def forward(self, input_data):
        output, pad_sizes = self.pad(input_data)
        output = self.unet3d(output)
        return self.unpad(output, *pad_sizes)


def build() -> nn.Module:
    return NormUnetModel3d().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 5, 17, 11, generator=generator),)


DYNAMIC = {"input_data": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
