"""timm's ``resample_abs_pos_embed``: a function that resizes a ViT's absolute position
embeddings to a new grid, whose ``antialias`` is a parameter defaulting to True and whose mode is
a parameter defaulting to ``'bicubic'``; ``VisionTransformer._pos_embed`` calls it on every
forward with ``dynamic_img_size=True`` (the grid following the image), leaving both defaults.

Reduced from timm 1.0.31 (the PyPI wheel the second zoo unpacks), timm/layers/pos_embed.py,
``resample_abs_pos_embed`` lines 20-65 (prefix tokens split off, ``posemb.float()``, the grid
reshaped to NCHW, the call at line 54 with ``mode=interpolation``,
``align_corners=align_corners`` (None) and ``antialias=antialias``, the result cast back to the
original dtype and the prefix put in front), and timm/models/vision_transformer.py,
``VisionTransformer._pos_embed`` lines 1088-1125 (NHWC patch tokens, ``new_size=(H, W)``, the
class token concatenated before the position embedding is added). Written here in our own words:
a strided convolution stands in for the patch embedding, and the size-match early exits, the old
size argument and the logging are left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def resample_abs_pos_embed(posemb: torch.Tensor, new_size: tuple, num_prefix_tokens: int = 1,
                           interpolation: str = "bicubic", antialias: bool = True, align_corners=None):
    num_pos_tokens = posemb.shape[1]
    side = int(math.sqrt(num_pos_tokens - num_prefix_tokens))
    posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    embed_dim = posemb.shape[-1]
    orig_dtype = posemb.dtype
    posemb = posemb.float()
    posemb = posemb.reshape(1, side, side, -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, align_corners=align_corners, antialias=antialias)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim)
    posemb = posemb.to(orig_dtype)
    return torch.cat([posemb_prefix, posemb], dim=1)


class VisionTransformer(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 4, grid: int = 5) -> None:
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid + 1, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch_embed(x).permute(0, 2, 3, 1)  # NHWC, as timm's dynamic-size patch embedding
        batch, height, width, channels = x.shape
        pos_embed = resample_abs_pos_embed(self.pos_embed, new_size=(height, width), num_prefix_tokens=1)
        x = x.reshape(batch, -1, channels)
        x = torch.cat([self.cls_token.expand(batch, -1, -1), x], dim=1)
        return x + pos_embed


def build() -> nn.Module:
    return VisionTransformer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 28, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
