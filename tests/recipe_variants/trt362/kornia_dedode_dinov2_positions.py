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

    def interpolate_pos_encoding(self, x, w, h):
        previous_dtype = x.dtype
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        pos_embed = self.pos_embed.float()
        class_pos_embed = pos_embed[:, 0]
        patch_pos_embed = pos_embed[:, 1:]
        dim = x.shape[-1]
        w0 = w // self.patch_size
        h0 = h // self.patch_size
        w0, h0 = w0 + 0.1, h0 + 0.1
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, int(math.sqrt(N)), int(math.sqrt(N)), dim).permute(0, 3, 1, 2),
            scale_factor=(w0 / math.sqrt(N), h0 / math.sqrt(N)),
            mode="bicubic",
        )
        check(int(w0) == patch_pos_embed.shape[-2])
        check(int(h0) == patch_pos_embed.shape[-1])
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1).to(previous_dtype)

    def forward(self, x):
        _B, _nc, w, h = x.shape
        x = self.proj(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        return x + self.interpolate_pos_encoding(x, w, h)


def build() -> nn.Module:
    return DinoPatchTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
