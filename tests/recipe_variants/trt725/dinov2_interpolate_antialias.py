"""DINOv2's ViT: the position embeddings resized to the image's patch grid bicubically with
``antialias=self.interpolate_antialias``, an attribute stored from a constructor parameter that
defaults to False; the hub's register models (``dinov2_vits14_reg`` and the others) pass
``interpolate_antialias=True`` and ``interpolate_offset=0.0`` from another file, so the size is
given as ``size=(w0, h0)`` through ``**kwargs``. TRT725 leaves the call (from the code alone its
antialiasing defaults to False); the literal ``mode="bicubic"`` makes it TRT727's, whose rewrite is
the same helper, which antialiases by the value it gets at run time.

Reduced from facebookresearch/dinov2 at commit b8931f7bf91576930313be2c6d6af376033b35f0,
dinov2/models/vision_transformer.py, ``DinoVisionTransformer.__init__`` lines 67-103
(``interpolate_antialias=False``, ``interpolate_offset=0.1`` stored on ``self``),
``interpolate_pos_encoding`` lines 180-212 (the call at lines 204-209 with ``**kwargs``) and
``prepare_tokens_with_masks`` lines 214-221 (``B, nc, w, h = x.shape``), and dinov2/hub/backbones.py
lines 100-110 (``interpolate_antialias=True``, ``interpolate_offset=0.0``). Written here in our own
words: a strided convolution for the patch embedding, no registers, masks or blocks, and no early
return at the embeddings' own size.
"""

import math

import torch
from torch import nn


class DinoVisionTransformer(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 4, grid: int = 5, interpolate_antialias=False,
                 interpolate_offset=0.1) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.interpolate_antialias = interpolate_antialias
        self.interpolate_offset = interpolate_offset
        self.patch_embed = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid + 1, dim))

    def interpolate_pos_encoding(self, x, w, h):
        previous_dtype = x.dtype
        n = self.pos_embed.shape[1] - 1
        pos_embed = self.pos_embed.float()
        class_pos_embed = pos_embed[:, 0]
        patch_pos_embed = pos_embed[:, 1:]
        dim = x.shape[-1]
        w0 = w // self.patch_size
        h0 = h // self.patch_size
        m = int(math.sqrt(n))
        kwargs = {}
        if self.interpolate_offset:
            kwargs["scale_factor"] = (float(w0 + self.interpolate_offset) / m, float(h0 + self.interpolate_offset) / m)
        else:
            kwargs["size"] = (w0, h0)
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.reshape(1, m, m, dim).permute(0, 3, 1, 2),
            mode="bicubic",
            antialias=self.interpolate_antialias,
            **kwargs,
        )
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed.unsqueeze(0), patch_pos_embed), dim=1).to(previous_dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, w, h = x.shape
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        return x + self.interpolate_pos_encoding(x, w, h)


def build() -> nn.Module:
    return DinoVisionTransformer(interpolate_antialias=True, interpolate_offset=0.0)  # as the hub's register models


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 28, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
