"""Pad to whole patches only when the size is not a multiple of the patch: monai's patch embedding.

Reduced from monai 1.6.1 (the PyPI wheel), monai/networks/blocks/patchembedding.py:221-228
(``PatchEmbed.forward``, 2-D inputs: ``if w % self.patch_size[1] != 0: x = F.pad(x, (0,
self.patch_size[1] - w % self.patch_size[1]))``, the same for ``h``, then the patch convolution),
written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch_size = (4, 4)
        self.proj = nn.Conv2d(3, 8, kernel_size=4, stride=4)

    def forward(self, x):
        _, _, h, w = x.size()
        if w % self.patch_size[1] != 0:
            x = F.pad(x, (0, self.patch_size[1] - w % self.patch_size[1]))
        if h % self.patch_size[0] != 0:
            x = F.pad(x, (0, 0, 0, self.patch_size[0] - h % self.patch_size[0]))
        return self.proj(x)


def build() -> nn.Module:
    return PatchEmbed()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 16, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
