"""dino-vit-features' position embeddings for a ViT whose patch convolution was given a smaller stride:
the patch counts computed from the stride, and the interpolation installed on the model as a method
built by a closure (``types.MethodType``), with ``recompute_scale_factor=False`` written out.

Reduced from ShirAmir/dino-vit-features @ 1779649078744e7d9be903325355fd481cca8103, extractor.py:83-137
(``ViTExtractor._fix_pos_enc``: ``w0 = 1 + (w - patch_size) // stride_hw[1]``, ``w0, h0 = w0 + 0.1, h0 +
0.1``, ``nn.functional.interpolate(..., scale_factor=(w0 / math.sqrt(N), h0 / math.sqrt(N)),
mode='bicubic', align_corners=False, recompute_scale_factor=False)``; ``patch_vit_resolution``:
``model.interpolate_pos_encoding = types.MethodType(ViTExtractor._fix_pos_enc(patch_size, stride), model)``).
Written here in our own words with DINO's ``prepare_tokens`` reduced to a patch convolution of stride 2
for patches of 4.
"""

import math
import types

import torch
from torch import nn


def fix_pos_enc(patch_size: int, stride_hw: tuple[int, int]):
    def interpolate_pos_encoding(self, x: torch.Tensor, w: int, h: int) -> torch.Tensor:
        npatch = x.shape[1] - 1
        N = self.pos_embed.shape[1] - 1
        if npatch == N and w == h:
            return self.pos_embed
        class_pos_embed = self.pos_embed[:, 0]
        patch_pos_embed = self.pos_embed[:, 1:]
        dim = x.shape[-1]
        # the number of tokens along each side, with the stride
        w0 = 1 + (w - patch_size) // stride_hw[1]
        h0 = 1 + (h - patch_size) // stride_hw[0]
        w0, h0 = w0 + 0.1, h0 + 0.1
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, int(math.sqrt(N)), int(math.sqrt(N)), dim).permute(0, 3, 1, 2),
            scale_factor=(w0 / math.sqrt(N), h0 / math.sqrt(N)),
            mode="bicubic",
            align_corners=False, recompute_scale_factor=False
        )
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1)

    return interpolate_pos_encoding


class StridedViT(nn.Module):
    def __init__(self, dim: int = 4, patch: int = 4, stride: int = 2, grid: int = 3) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, dim, kernel_size=patch, stride=stride)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + grid * grid, dim))
        self.interpolate_pos_encoding = types.MethodType(fix_pos_enc(patch, (stride, stride)), self)

    def forward(self, x):
        B, nc, w, h = x.shape
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        tokens = torch.cat((self.cls_token.expand(B, -1, -1), tokens), dim=1)
        return tokens + self.interpolate_pos_encoding(tokens, w, h)


def build() -> nn.Module:
    return StridedViT()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 14, 18, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
