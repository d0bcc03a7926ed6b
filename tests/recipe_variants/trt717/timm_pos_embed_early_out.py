"""Return the position embedding as it is when the grid already matches: timm's ``resample_abs_pos_embed``.

Reduced from timm 1.0.31 (the PyPI wheel), timm/layers/pos_embed.py:19-65: ``num_new_tokens =
new_size[0] * new_size[1] + num_prefix_tokens``, then ``if not is_exporting() and num_new_tokens ==
num_pos_tokens:`` holding two nested ``if``s that ``return posemb`` when the old and new grids
match, and otherwise the prefix tokens split off, the grid resized with a bicubic antialiased
``F.interpolate`` whose ``antialias`` is a parameter defaulting to True, and the tokens joined
again. timm's guard skips the shortcut under ``torch.export`` only, so the TorchScript exporter
keeps it when the example's grid is the embedding's own (a ``TracerWarning`` at each ``if``), and
the graph then adds a 4 x 4 embedding at every size. Written here in our own words, with the
caller (``VisionTransformer._pos_embed`` with ``dynamic_img_size=True``, which passes the
embedding's own grid as ``old_size``) as a small patch model.
The shortcut is TRT717's; the antialiased resize, TRT725's.
"""

import math
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn


def is_exporting() -> bool:
    return torch.compiler.is_exporting()


def resample_abs_pos_embed(posemb: torch.Tensor, new_size: List[int], old_size: Optional[List[int]] = None,
                           num_prefix_tokens: int = 1, interpolation: str = "bicubic", antialias: bool = True):
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if not is_exporting() and num_new_tokens == num_pos_tokens:
        if old_size is not None and old_size[0] == new_size[0] and old_size[1] == new_size[1]:
            return posemb
        if old_size is None and new_size[0] == new_size[1]:
            return posemb
    if old_size is None:
        side = int(math.sqrt(num_pos_tokens - num_prefix_tokens))
        old_size = side, side
    prefix, grid = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    dim = posemb.shape[-1]
    grid = grid.float().reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=new_size, mode=interpolation, align_corners=None, antialias=antialias)
    grid = grid.permute(0, 2, 3, 1).reshape(1, -1, dim).to(posemb.dtype)
    return torch.cat([prefix, grid], dim=1)


class PatchModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 8, 4, stride=4)
        self.cls_token = nn.Parameter(torch.randn(1, 1, 8))
        self.grid_size = (4, 4)
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + 4 * 4, 8))

    def forward(self, x):
        x = self.patch(x).permute(0, 2, 3, 1)
        B, H, W, C = x.shape
        pos_embed = resample_abs_pos_embed(self.pos_embed, new_size=[H, W], old_size=self.grid_size,
                                           num_prefix_tokens=1)
        tokens = torch.cat([self.cls_token.expand(B, -1, -1), x.reshape(B, -1, C)], dim=1)
        return tokens + pos_embed


def build() -> nn.Module:
    return PatchModel()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 16, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
