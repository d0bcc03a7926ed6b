"""FeatUp's position embeddings for CLIP at any image size: a free function of a 2-D embedding table,
the grid's side from NumPy's square root, and the patch counts from the sizes the encoder passes.

Reduced from mhamilton723/FeatUp @ 6b5a6c0e91f75e69194807128dcbc39c3084a30d,
featup/featurizers/maskclip/interpolate.py:5-57 (``interpolate_positional_embedding``: ``w0 = w //
patch_size``, ``w0, h0 = w0 + 0.1, h0 + 0.1``, ``patch_per_ax = int(np.sqrt(num_og_patches))``,
``torch.nn.functional.interpolate(..., scale_factor=(w0 / patch_per_ax, h0 / patch_per_ax),
mode="bicubic", align_corners=False, recompute_scale_factor=False)``), called from
featup/featurizers/maskclip/model.py:265-272 (``VisionTransformer.forward``: ``_, _, w, h = x.shape``).
Written here in our own words with the encoder reduced to a patch convolution and the class token.
"""

import numpy as np
import torch
from torch import nn


def interpolate_positional_embedding(positional_embedding: torch.Tensor, x: torch.Tensor, patch_size: int,
                                     w: int, h: int):
    assert positional_embedding.ndim == 2, "pos_encoding must be 2D"
    num_patches = x.shape[1] - 1
    num_og_patches = positional_embedding.shape[0] - 1
    if num_patches == num_og_patches and w == h:
        return positional_embedding.to(x.dtype)
    dim = x.shape[-1]
    class_pos_embed = positional_embedding[:1]
    patch_pos_embed = positional_embedding[1:]
    w0 = w // patch_size
    h0 = h // patch_size
    w0, h0 = w0 + 0.1, h0 + 0.1
    patch_per_ax = int(np.sqrt(num_og_patches))
    patch_pos_embed_interp = torch.nn.functional.interpolate(
        patch_pos_embed.reshape(1, patch_per_ax, patch_per_ax, dim).permute(0, 3, 1, 2),
        scale_factor=(w0 / patch_per_ax, h0 / patch_per_ax),
        mode="bicubic",
        align_corners=False,
        recompute_scale_factor=False,
    )
    patch_pos_embed_interp = patch_pos_embed_interp.permute(0, 2, 3, 1).reshape(-1, dim)
    pos_embed_interp = torch.cat([class_pos_embed, patch_pos_embed_interp], dim=0)
    return pos_embed_interp.to(x.dtype)


class ClipPatches(nn.Module):
    def __init__(self, width: int = 4, patch_size: int = 4, grid: int = 3) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, bias=False)
        self.class_embedding = nn.Parameter(torch.randn(width))
        self.positional_embedding = nn.Parameter(torch.randn(grid * grid + 1, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, w, h = x.shape
        x = self.conv1(x)
        x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        cls = self.class_embedding.to(x.dtype) + torch.zeros(x.shape[0], 1, x.shape[-1], dtype=x.dtype)
        x = torch.cat([cls, x], dim=1)
        return x + interpolate_positional_embedding(self.positional_embedding, x, patch_size=self.patch_size, w=w, h=h)


def build() -> nn.Module:
    return ClipPatches()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
