"""timm's SAM 2 Hiera (hieradet_sam2): the window position embedding tiled over the interpolated one.

Reduced from timm 1.0.31, timm/models/hieradet_sam2.py: ``HieraDet.__init__`` (the two parameters,
lines 366-367) and ``HieraDet._pos_embed`` (lines 437-444). The global embedding (a parameter of
``1 x C x 7 x 7``) is resized with bicubic ``F.interpolate`` to the token grid's height and width;
the counts are the integer quotients of its last two sizes by the window embedding's
(``1 x C x w x w``), and ``window_embed.tile((tile_h, tile_w))`` (the method, one tuple of two counts
for a 4-D tensor: fewer counts than axes) is added before the channels move last and the sum is
added to the tokens (``B x H x W x C``). Written here in our own words; the patch embedding is one
strided convolution followed by the permute timm's ``PatchEmbed`` ends with.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class HieraPositions(nn.Module):
    def __init__(self, dim: int = 8, patch: int = 4, global_size: int = 7, window: int = 4) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.pos_embed = nn.Parameter(torch.randn(1, dim, global_size, global_size) * 0.02)
        self.pos_embed_window = nn.Parameter(torch.randn(1, dim, window, window) * 0.02)

    def _pos_embed(self, x: torch.Tensor) -> torch.Tensor:
        h, w = x.shape[1:3]
        window_embed = self.pos_embed_window
        pos_embed = F.interpolate(self.pos_embed, size=(h, w), mode="bicubic")
        tile_h = pos_embed.shape[-2] // window_embed.shape[-2]
        tile_w = pos_embed.shape[-1] // window_embed.shape[-1]
        pos_embed = pos_embed + window_embed.tile((tile_h, tile_w))
        pos_embed = pos_embed.permute(0, 2, 3, 1)
        return x + pos_embed

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(images).permute(0, 2, 3, 1)
        return self._pos_embed(x)


def build() -> nn.Module:
    return HieraPositions().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 32, 48, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
