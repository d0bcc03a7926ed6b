"""kornia's DINOv2 backbone for DeDoDe: DINO's position-embedding resize with the embedding taken to
float32 and the result back to the tokens' dtype, and the resized grid checked by a check call.

Reduced from kornia/kornia @ b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/feature/dedode/transformer/dinov2.py:213-267 (``DinoVisionTransformer.interpolate_pos_encoding``:
``pos_embed = self.pos_embed.float()``, ``w0 = w // self.patch_size``, ``w0, h0 = w0 + 0.1, h0 + 0.1``,
``nn.functional.interpolate(..., scale_factor=(w0 / math.sqrt(N), h0 / math.sqrt(N)), mode="bicubic")``,
``KORNIA_CHECK(int(w0) == patch_pos_embed.shape[-2])``, ``.to(previous_dtype)``; called from
``prepare_tokens_with_masks`` with ``_B, _nc, w, h = x.shape``). Written here in our own words with a
small check function standing in for ``KORNIA_CHECK`` and a patch convolution for ``PatchEmbed``.
"""

import math

import torch
from torch import nn


def check(condition: bool, msg: str = "") -> bool:
    if not condition:
        raise ValueError(msg or "check failed")
    return True


class DinoPatchTokens(nn.Module):
    def __init__(self, dim: int = 4, patch_size: int = 4, grid: int = 3) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + grid * grid, dim))

    def interpolate_pos_encoding(self, tokens, w, h):
        token_dtype = tokens.dtype
        n_tokens = tokens.shape[1] - 1
        n_grid = self.pos_embed.shape[1] - 1
        if n_tokens == n_grid and w == h:
            return self.pos_embed
        table = self.pos_embed.float()
        cls_row, grid_rows = table[:, 0], table[:, 1:]
        width = tokens.shape[-1]
        w0 = w // self.patch_size
        h0 = h // self.patch_size
        w0, h0 = w0 + 0.1, h0 + 0.1
        side = int(math.sqrt(n_grid))
        grid_rows = nn.functional.interpolate(
            grid_rows.reshape(1, side, side, width).permute(0, 3, 1, 2),
            scale_factor=(w0 / math.sqrt(n_grid), h0 / math.sqrt(n_grid)),
            mode="bicubic",
        )
        check(int(w0) == grid_rows.shape[-2])
        check(int(h0) == grid_rows.shape[-1])
        grid_rows = grid_rows.permute(0, 2, 3, 1).reshape(1, -1, width)
        return torch.cat((cls_row[:, None], grid_rows), dim=1).to(token_dtype)

    def forward(self, images):
        _B, _nc, w, h = images.shape
        tokens = self.proj(images).flatten(2).transpose(1, 2)
        tokens = torch.cat((self.cls_token.expand(tokens.shape[0], -1, -1), tokens), dim=1)
        return tokens + self.interpolate_pos_encoding(tokens, w, h)


def build() -> nn.Module:
    return DinoPatchTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
