"""Left as it is, and said why: ``if height > width:`` picks which side of a flattened attention map is
rounded from the scale, and the other side then reads it in the same branch.

Reduced from huggingface/transformers (``resize_attention_map`` in
src/transformers/models/groupvit/modeling_groupvit.py, transformers 5.24.0 lines 97-103: ``scale = (height *
width // attentions.shape[2]) ** 0.5``, ``if height > width: feat_width = int(np.round(width / scale));
feat_height = attentions.shape[2] // feat_width``, ``else:`` the other way round), written here in our own
words, rounding half up with ``int(... + 0.5)`` where the original rounds with NumPy.
"""

import torch
import torch.nn.functional as F
from torch import nn


def unflatten_map(attn: torch.Tensor, height: int, width: int) -> torch.Tensor:
    cells = attn.shape[2]
    scale = (height * width // cells) ** 0.5
    if height > width:
        feat_width = int(width / scale + 0.5)
        feat_height = cells // feat_width
    else:
        feat_height = int(height / scale + 0.5)
        feat_width = cells // feat_height
    grid = attn.reshape(attn.shape[0], attn.shape[1], feat_height, feat_width)
    return F.interpolate(grid, size=(height, width), mode="bilinear", align_corners=False)


class AttentionToImage(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        attn = F.avg_pool2d(x, 2).flatten(2)
        return unflatten_map(attn, x.shape[2], x.shape[3])


def build() -> nn.Module:
    return AttentionToImage()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 8, 6, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
