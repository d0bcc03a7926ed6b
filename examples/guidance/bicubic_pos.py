"""Resize functions (the cheatsheet's blacklist): a ViT/YOLOS-style position embedding,
learned on one patch grid and interpolated bicubically to the grid of each image.

``F.interpolate(..., mode="bicubic")`` exports as a cubic ``Resize``, which TensorRT cannot
parse. migrate locates the node at the call and tries TRT727 (bicubic weights as two
matrices while exporting), kept because the verification finds the rewritten model
equivalent on every input set (its assumption, finite inputs up to rounding, cannot be
observed).
"""

import torch
import torch.nn.functional as F
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, dim: int = 8, patch: int = 4, grid: int = 4) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        # Learned for 16x16 images (a 4x4 grid of patches); other sizes interpolate it.
        self.pos = nn.Parameter(torch.randn(1, dim, grid, grid) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = self.proj(x)
        h, w = feats.shape[2], feats.shape[3]
        pos = F.interpolate(self.pos, size=(h, w), mode="bicubic", align_corners=False)
        return (feats + pos).flatten(2).transpose(1, 2)


def build() -> nn.Module:
    return PatchEmbed()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 24, 32, generator=generator),)
