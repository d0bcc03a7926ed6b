"""Tokens back to a map with ``len`` of the batch: MobileSAM's TinyViT patch merging, as ultralytics ships it.

Reduced from ultralytics 8.4.190 (the PyPI wheel), ultralytics/models/sam/modules/tiny_encoder.py:
``PatchMerging.forward(self, x: torch.Tensor)`` (lines 239-252: ``if x.ndim == 3: H, W =
self.input_resolution; B = len(x); x = x.view(B, H, W, -1).permute(0, 3, 1, 2)``, then three
convolutions); the class comes from MobileSAM's ``tiny_vit_sam.py`` (ChaoningZhang/MobileSAM,
2023). Written here in our own words, with smaller convolutions.
"""

import torch
from torch import nn


class PatchMerging(nn.Module):
    def __init__(self, input_resolution=(4, 4), dim=6, out_dim=8) -> None:
        super().__init__()
        self.input_resolution = input_resolution
        self.conv1 = nn.Conv2d(dim, out_dim, 1)
        self.conv2 = nn.Conv2d(out_dim, out_dim, 3, 2, 1, groups=out_dim)
        self.conv3 = nn.Conv2d(out_dim, out_dim, 1)
        self.act = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim == 3:
            H, W = self.input_resolution
            B = len(x)
            x = x.view(B, H, W, -1).permute(0, 3, 1, 2)
        x = self.act(self.conv1(x))
        x = self.act(self.conv2(x))
        x = self.conv3(x)
        return x.flatten(2).transpose(1, 2)


def build() -> nn.Module:
    return PatchMerging()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
