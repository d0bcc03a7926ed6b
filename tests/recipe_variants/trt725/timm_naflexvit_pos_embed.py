"""timm's NaFlexViT: the learned 2-D position embeddings (kept NHWC) resized to each image's patch
grid by a function nested in the method, ``_interp2d(size)``, whose mode, ``align_corners`` and
``antialias`` are the module's attributes (``self.pos_embed_antialias``, stored once in
``__init__`` from a constructor parameter that defaults to True), the result cropped to the grid,
flattened and cast to the tokens' dtype.

Reduced from timm 1.0.31 (the PyPI wheel the second zoo unpacks), timm/models/naflexvit.py,
``NaFlexEmbeds.__init__`` lines 403-462 (``pos_embed_interp_mode: str = 'bicubic'``,
``pos_embed_align_corners: bool = False``, ``pos_embed_antialias: bool = True`` stored on
``self``) and ``_apply_learned_naflex_pos_embed`` lines 642-696 (``pos_embed_nchw`` in float32,
``_interp2d`` with the call at lines 672-678, ``[:, :, :size[0], :size[1]]``,
``.flatten(2).transpose(1, 2)``, ``.to(dtype=x.dtype)``). Written here in our own words: one grid
size per batch taken from a strided convolution's output instead of per-sample patch coordinates
(no ``index_add_`` over samples), and neither the aspect-ratio-preserving option nor the shortcut
at the table's own size (an antialiased resize to the same size is the identity).
"""

import torch
import torch.nn.functional as F
from torch import nn


class NaFlexEmbeds(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 4, grid: tuple = (5, 7), pos_embed_interp_mode: str = "bicubic",
                 pos_embed_align_corners: bool = False, pos_embed_antialias: bool = True) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.pos_embed = nn.Parameter(torch.randn(1, grid[0], grid[1], dim))
        self.pos_embed_interp_mode = pos_embed_interp_mode
        self.pos_embed_align_corners = pos_embed_align_corners
        self.pos_embed_antialias = pos_embed_antialias

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        x = self.proj(pixels)
        grid_size = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        pos_embed_nchw = self.pos_embed.permute(0, 3, 1, 2).float()

        def _interp2d(size):
            pos_embed_flat = F.interpolate(
                pos_embed_nchw,
                size=size,
                mode=self.pos_embed_interp_mode,
                align_corners=self.pos_embed_align_corners,
                antialias=self.pos_embed_antialias,
            )[:, :, :size[0], :size[1]].flatten(2).transpose(1, 2)
            return pos_embed_flat.to(dtype=x.dtype)

        return x + _interp2d(grid_size)


def build() -> nn.Module:
    return NaFlexEmbeds()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 40, generator=generator),)


DYNAMIC = {"pixels": {0: "batch", 2: "height", 3: "width"}}
