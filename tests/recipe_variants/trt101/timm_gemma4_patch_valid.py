"""A padding mask made only when the pre-patchified input has sentinel patches: timm's Gemma4 ViT.

Reduced from timm 1.0.31 (the PyPI wheel), timm/models/gemma4_vit.py:343-346 (``if patch_valid is
None and not default_grid: sentinel = (patch_coord == -1).all(dim=-1); if sentinel.any():
patch_valid = ~sentinel``, where ``patch_valid`` is an argument that defaults to None). Written
here in our own words, with a linear patch projection and the mask applied to it.
"""

import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.input_proj = nn.Linear(6, 4)

    def forward(self, x, patch_coord, patch_valid=None):
        if patch_valid is None:
            sentinel = (patch_coord == -1).all(dim=-1)
            if sentinel.any():
                patch_valid = ~sentinel
        x = self.input_proj(2 * (x - 0.5))
        if patch_valid is not None:
            x = x * patch_valid[..., None]
        return x


def build() -> nn.Module:
    return PatchEmbed()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    coord = torch.randint(0, 3, (1, 5, 2), generator=generator)
    coord[0, -1] = -1
    return torch.rand(1, 5, 6, generator=generator), coord


DYNAMIC = {"x": {1: "patches"}, "patch_coord": {1: "patches"}}
