"""DINO's position embeddings for any image size: the patch part of a learned embedding, laid out on
the pre-training grid, resized bicubically by a factor computed from the image's patch counts.

Reduced from facebookresearch/dino @ 04c0ad957c9fd04cced6d703668bc049586d1d21,
vision_transformer.py:174-203 (``VisionTransformer.interpolate_pos_encoding``: ``w0 = w //
patch_size``, ``w0, h0 = w0 + 0.1, h0 + 0.1``, ``nn.functional.interpolate(..., scale_factor=(w0 /
math.sqrt(N), h0 / math.sqrt(N)), mode='bicubic')``, called from ``prepare_tokens`` with ``B, nc, w, h =
x.shape``). Written here in our own words with a tiny patch embedding and no transformer blocks.
The sizes reach the resize as parameters of a helper method, not read from a shape there.
"""

import math

import torch
from torch import nn


class PatchPositions(nn.Module):
    def __init__(self, dim: int = 4, patch: int = 4, grid: int = 3) -> None:
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + grid * grid, dim))

    def positions(self, x, w, h):
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        cls_pos = self.pos_embed[:, 0]
        grid_pos = self.pos_embed[:, 1:]
        dim = x.shape[-1]
        w0 = w // self.patch
        h0 = h // self.patch
        # a small offset keeps the floor of the output size at the patch count
        w0, h0 = w0 + 0.1, h0 + 0.1
        side = int(math.sqrt(N))
        grid_pos = nn.functional.interpolate(
            grid_pos.reshape(1, side, side, dim).permute(0, 3, 1, 2),
            scale_factor=(w0 / math.sqrt(N), h0 / math.sqrt(N)),
            mode="bicubic",
        )
        grid_pos = grid_pos.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((cls_pos.unsqueeze(0), grid_pos), dim=1)

    def forward(self, x):
        B, nc, w, h = x.shape
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        tokens = torch.cat((self.cls_token.expand(B, -1, -1), tokens), dim=1)
        return tokens + self.positions(tokens, w, h)


def build() -> nn.Module:
    return PatchPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
