"""Pad to whole patches only where a size is not one, the amounts in a local: transformers' Swin.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/swin/modeling_swin.py:268-285
(``SwinPatchEmbeddings.maybe_pad`` and ``forward``: the caller reads the sizes and hands them down,
then ``if width % self.patch_size[1] != 0: pad_values = (0, self.patch_size[1] - width %
self.patch_size[1])`` and ``pixel_values = nn.functional.pad(pixel_values, pad_values)``, the same
for the height, before a strided convolution), written here in our own words. The pad's amounts sit
in a local bound just before the pad, and the sizes are parameters: only the export's warning at the
``if`` says they are sizes.
"""

import torch
from torch import nn


class PatchEmbeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch_size = (4, 4)
        self.projection = nn.Conv2d(3, 6, kernel_size=4, stride=4)

    def maybe_pad(self, pixel_values, height, width):
        if width % self.patch_size[1] != 0:
            pad_values = (0, self.patch_size[1] - width % self.patch_size[1])
            pixel_values = nn.functional.pad(pixel_values, pad_values)
        if height % self.patch_size[0] != 0:
            pad_values = (0, 0, 0, self.patch_size[0] - height % self.patch_size[0])
            pixel_values = nn.functional.pad(pixel_values, pad_values)
        return pixel_values

    def forward(self, pixel_values):
        _, _, height, width = pixel_values.shape
        pixel_values = self.maybe_pad(pixel_values, height, width)
        return self.projection(pixel_values).flatten(2).transpose(1, 2)


def build() -> nn.Module:
    return PatchEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)


DYNAMIC = {"pixel_values": {2: "h", 3: "w"}}
