"""mridc's segmentation V-Net wrapper: consecutive slices are folded into the batch, the image is
normalized with ``group_norm`` and padded with ``((w - 1) | self.padding_size) + 1`` where the
padding size defaults to 11 (``0b1011``: not one less than a power of two, so the rounding keeps
bit 2 of the size and sets the others), then segmented, cut back and made non-negative with
``abs``.

Reduced from wdika/mridc at commit 52f9fa5351501b43dc828ace4f0e6fa4f2d1eda2,
mridc/collections/segmentation/nn/vnet.py: ``SegmentationVNet.__init__`` (line 42, the default
``segmentation_module_padding_size`` 11), ``forward`` (lines 45-121: the slice folding, the group
norm, pad, segment, unpad, ``abs``), ``pad`` (lines 123-131) and ``unpad`` (lines 133-136).
Written here in our own words: the V-Net is one convolution; the complex-input branches and the
output normalization are left out.
"""

import math
from typing import List

import torch
from torch import nn


class SegmentationVNet(nn.Module):
    def __init__(self, padding_size: int = 11, consecutive_slices: int = 2) -> None:
        super().__init__()
        self.segmentation_module = nn.Conv2d(1, 3, 3, padding=1)
        self.padding_size = padding_size
        self.consecutive_slices = consecutive_slices

    def forward(self, image):
        if self.consecutive_slices > 1:
            batch, slices = image.shape[:2]
            image = image.reshape(image.shape[0] * image.shape[1], image.shape[2], image.shape[3])
        image = image.unsqueeze(1)
        with torch.no_grad():
            image = torch.nn.functional.group_norm(image, num_groups=1)
        image, pad_sizes = self.pad(image)
        segmentation = self.segmentation_module(image)
        segmentation = self.unpad(segmentation, *pad_sizes)
        segmentation = torch.abs(segmentation)
        if self.consecutive_slices > 1:
            segmentation = segmentation.view(
                [batch, slices, segmentation.shape[1], segmentation.shape[2], segmentation.shape[3]])
        return segmentation

    def pad(self, x: torch.Tensor):
        _, _, h, w = x.shape
        w_mult = ((w - 1) | self.padding_size) + 1
        h_mult = ((h - 1) | self.padding_size) + 1
        w_pad = [math.floor((w_mult - w) / 2), math.ceil((w_mult - w) / 2)]
        h_pad = [math.floor((h_mult - h) / 2), math.ceil((h_mult - h) / 2)]
        x = torch.nn.functional.pad(x, w_pad + h_pad)
        return x, (h_pad, w_pad, h_mult, w_mult)

    @staticmethod
    def unpad(x, h_pad: List[int], w_pad: List[int], h_mult: int, w_mult: int):
        return x[..., h_pad[0] : h_mult - h_pad[1], w_pad[0] : w_mult - w_pad[1]]


def build() -> nn.Module:
    return SegmentationVNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 13, 22, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
