"""timm's DINOv3 rotary embedding in its interleaved layout: the angles of each patch position doubled along the last
axis, applied to the tokens with a rotation that stacks pairs along ``-1``.

Reduced from huggingface/pytorch-image-models @ aa4b5850c1543fa488abf260f18390eda46cf85d, timm/layers/pos_embed_sincos.py:
``RotaryEmbeddingDinoV3._get_pos_embed_from_coords`` (lines 1230-1256) writes, for ``rotate_half=False``,
``angles = angles.repeat_interleave(2, dim=-1)`` (line 1251) on the ``(HW, dim // 2)`` angles; ``_create_embed``
(lines 1262-1276) builds them from ``make_coords_dinov3`` (lines 1059-1104, 0.5-centred coordinates scaled to
``[-1, 1]``) for the feature map's ``x.shape[2:]`` (``forward``, lines 1316-1320); ``apply_rot_embed_cat`` (lines
281-297) with ``rot`` (lines 228-231: ``torch.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)``) applies
them. Kept: the angles from the traced height and width, the ``repeat_interleave`` along ``-1`` and the rotation's
``stack`` along ``-1`` on the 3-D tokens. Reduced: the coordinates are divided by the traced sizes (timm takes
``float(height)``), no augmentations, one 1x1 convolution before and one linear layer after. Written here in our own
words. The TorchScript exporter turns the shared ``-1`` into 1 (the angles' rank is 2), so the rotation stacks along
axis 1 of the 3-D tokens and the graph computes other values.
"""

import math

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
CALL = "angles = angles.repeat_interleave(2, dim=-1)"


def rot(x):
    return torch.stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)


class DinoV3Rope(nn.Module):
    def __init__(self, dim: int = 8, temperature: float = 100.0) -> None:
        super().__init__()
        self.dim = dim
        exponents = 2.0 * torch.arange(dim // 4, dtype=torch.float32) / (dim // 2)
        self.register_buffer("periods", temperature ** exponents, persistent=False)
        self.proj_in = nn.Conv2d(3, dim, 1)
        self.proj_out = nn.Linear(dim, dim)

    def coords(self, height, width):
        coords_h = torch.arange(0.5, height, dtype=torch.float32) / height
        coords_w = torch.arange(0.5, width, dtype=torch.float32) / width
        coords = torch.stack(torch.meshgrid(coords_h, coords_w, indexing="ij"), dim=-1)
        return 2.0 * coords.flatten(0, 1) - 1.0

    def pos_embed(self, coords):
        angles = 2 * math.pi * coords[:, :, None] / self.periods[None, None, :]
        angles = angles.flatten(1)
        angles = angles.repeat_interleave(2, dim=-1)
        return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)

    def forward(self, x):
        feat = self.proj_in(x)
        tokens = feat.flatten(2).transpose(1, 2)
        emb = self.pos_embed(self.coords(feat.shape[2], feat.shape[3]))
        sin_emb, cos_emb = emb.chunk(2, -1)
        return self.proj_out(tokens * cos_emb + rot(tokens) * sin_emb)


def build() -> nn.Module:
    torch.manual_seed(0)
    return DinoV3Rope().eval()


def inputs(generator: torch.Generator, height: int = 4, width: int = 5, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 3, height, width, generator=generator),)
