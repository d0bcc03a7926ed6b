"""Ultralytics' SAM 2 Hiera encoder: the window embedding tiled by counts from a list comprehension.

Reduced from ultralytics 8.4.190, ultralytics/models/sam/modules/encoders.py: ``Hiera._get_pos_embed``
(lines 765-772), called from ``Hiera.forward`` with the token grid's height and width. The
background embedding is resized with bicubic ``F.interpolate`` to that size, and the window
embedding is tiled with ``window_embed.tile([x // y for x, y in zip(pos_embed.shape,
window_embed.shape)])``: the counts are a list comprehension over both tensors' four sizes (the
method, one count per axis), and the sum has its channels moved last. Written here in our own
words; the patch embedding is one strided convolution and its permute, and the model adds the
embedding to the tokens as ``Hiera.forward`` does.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Hiera(nn.Module):
    def __init__(self, dim: int = 8, patch: int = 4, background: int = 6, window: int = 2) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.pos_embed = nn.Parameter(torch.randn(1, dim, background, background) * 0.02)
        self.pos_embed_window = nn.Parameter(torch.randn(1, dim, window, window) * 0.02)

    def _get_pos_embed(self, hw: tuple[int, int]) -> torch.Tensor:
        h, w = hw
        window_embed = self.pos_embed_window
        pos_embed = F.interpolate(self.pos_embed, size=(h, w), mode="bicubic")
        pos_embed = pos_embed + window_embed.tile([x // y for x, y in zip(pos_embed.shape, window_embed.shape)])
        pos_embed = pos_embed.permute(0, 2, 3, 1)
        return pos_embed

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x).permute(0, 2, 3, 1)
        return x + self._get_pos_embed(x.shape[1:3])


def build() -> nn.Module:
    return Hiera().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
