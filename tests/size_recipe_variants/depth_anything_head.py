"""``int()`` of a size handed down: Depth Anything's head resizes to ``int(patch_h * 14)``.

Reduced from LiheYoung/Depth-Anything @ 1d03336771fe09c5398ffdd211441e33941a97dc,
depth_anything/dpt.py:133 (``F.interpolate(out, (int(patch_h * 14), int(patch_w * 14)), ...)``
in ``DPTHead.forward(self, out_features, patch_h, patch_w)``, the patch counts computed by the
caller as ``h // 14``), written here in our own words with a patch of 2.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 1, 1)

    def forward(self, features, patch_h, patch_w):
        out = self.conv(features)
        out = F.interpolate(out, (int(patch_h * 2), int(patch_w * 2)), mode="bilinear", align_corners=True)
        return out.squeeze(1)


class Depth(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pool = nn.AvgPool2d(2)
        self.head = Head()

    def forward(self, x):
        h, w = x.shape[-2:]
        patch_h, patch_w = h // 2, w // 2
        return self.head(self.pool(x), patch_h, patch_w)


def build() -> nn.Module:
    return Depth()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 10, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
