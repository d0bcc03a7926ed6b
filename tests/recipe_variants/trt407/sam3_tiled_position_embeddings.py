"""SAM 3's ViT embeddings: pretrained position embeddings tiled past the image, then cropped.

Reduced from transformers 5.24.0, models/sam3/modeling_sam3.py: ``Sam3ViTEmbeddings.__init__``
(the ``1 x N x C`` parameter, lines 603-605), ``Sam3ViTEmbeddings._tile_position_embeddings``
(lines 610-638) and ``Sam3ViTEmbeddings.forward`` (lines 640-660). The pretrained embeddings are a
square grid (its side ``int(N ** 0.5)``); unless the grid already has the image's size in patches
(always tiled while tracing), they are reshaped to ``1 x C x s x s``, tiled with
``pos_embed.tile([1, 1, repeat_h, repeat_w])`` (the method, one list display with a count per axis,
two counts computed from the patch counts) one more time than fits, cropped with
``[:, :, :height, :width]``, and flattened back to ``1 x (height * width) x C`` to be added to the
patch tokens. Written here in our own words; the patch embedding is one strided convolution and
the dropout is left out (eval mode).
"""

import torch
import torch.nn as nn


class ViTEmbeddings(nn.Module):
    def __init__(self, dim: int = 8, patch: int = 4, grid: int = 3) -> None:
        super().__init__()
        self.patch_size = patch
        self.patch_embeddings = nn.Conv2d(3, dim, patch, patch)
        self.position_embeddings = nn.Parameter(torch.randn(1, grid * grid, dim))

    def _tile_position_embeddings(self, position_embeddings: torch.Tensor, height: int, width: int) -> torch.Tensor:
        side = int(position_embeddings.shape[1] ** 0.5)
        if not torch.jit.is_tracing() and side == height and side == width:
            return position_embeddings.reshape(1, height * width, -1)
        hidden_size = position_embeddings.shape[-1]
        pos_embed = position_embeddings.reshape(1, side, side, hidden_size).permute(0, 3, 1, 2)
        repeat_h = height // side + 1
        repeat_w = width // side + 1
        pos_embed = pos_embed.tile([1, 1, repeat_h, repeat_w])[:, :, :height, :width]
        return pos_embed.permute(0, 2, 3, 1).reshape(1, height * width, hidden_size)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        height, width = pixel_values.shape[-2:]
        embeddings = self.patch_embeddings(pixel_values).flatten(2).transpose(1, 2)
        positions = self._tile_position_embeddings(
            self.position_embeddings, height // self.patch_size, width // self.patch_size
        )
        return embeddings + positions


def build() -> nn.Module:
    return ViTEmbeddings().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 28, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
