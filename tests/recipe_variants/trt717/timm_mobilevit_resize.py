"""Resize to whole patches only when the size changed: timm's MobileViT block.

Reduced from timm 1.0.31 (the PyPI wheel), timm/models/mobilevit.py:533-539
(``MobileVitBlock.forward``: ``new_h, new_w = math.ceil(H / patch_h) * patch_h, math.ceil(W / patch_w)
* patch_w`` and ``if new_h != H or new_w != W: x = F.interpolate(x, size=(new_h, new_w),
mode="bilinear", align_corners=True)``), written here in our own words with a patch mean standing in
for the transformer. ``math.ceil`` of sizes is TRT712's; the ``if`` is TRT717's.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class MobileVitBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch_size = (2, 2)
        self.conv = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        B, C, H, W = x.shape
        patch_h, patch_w = self.patch_size
        new_h, new_w = math.ceil(H / patch_h) * patch_h, math.ceil(W / patch_w) * patch_w
        if new_h != H or new_w != W:
            x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=True)
        x = self.conv(x)
        patches = x.reshape(B, C, new_h // patch_h, patch_h, new_w // patch_w, patch_w)
        return patches.mean(dim=(3, 5))


def build() -> nn.Module:
    return MobileVitBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 8, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
