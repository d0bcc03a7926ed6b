"""Kornia's RT-DETR hybrid encoder runs its intra-scale transformer layer (``AIFI``) on the last feature map
with a 2D sine-cosine position embedding rebuilt on every call by ``build_2d_sincos_pos_emb(W, H, C,
device=x.device, dtype=x.dtype)``: the grid coordinates are ``torch.arange(w, ..., dtype=dtype)`` and the
same over h, meshed, scaled by the per-channel frequencies and passed through sin and cos. When the
detector runs in half precision the tokens are float16, so the aranges are float16 and export as float16
``Range`` nodes, which ONNX Runtime refuses.

Reduced from kornia/kornia @ b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/models/rt_detr/architecture/hybrid_encoder.py: ``AIFI.forward`` (lines 160-183) and the static
``AIFI.build_2d_sincos_pos_emb`` (lines 200-235). What is reduced: the backbone is one float16 strided
convolution giving a 16-channel map, the feed-forward sublayer is written inline, and the dropout layers are
left out (inference). Written here in our own words.
"""

from typing import Optional

import torch
from torch import nn


class AIFI(nn.Module):
    def __init__(self, embed_dim: int = 16, num_heads: int = 2, dim_feedforward: int = 32) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, embed_dim, 3, stride=4, padding=1)
        self.self_attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.linear1 = nn.Linear(embed_dim, dim_feedforward)
        self.linear2 = nn.Linear(dim_feedforward, embed_dim)
        self.norm1 = nn.LayerNorm(embed_dim)
        self.norm2 = nn.LayerNorm(embed_dim)
        self.act = nn.GELU()

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        x = self.stem(image)
        N, C, H, W = x.shape
        x = x.permute(2, 3, 0, 1).flatten(0, 1)
        pos_emb = self.build_2d_sincos_pos_emb(W, H, C, device=x.device, dtype=x.dtype)
        q = k = x + pos_emb
        attn, _ = self.self_attn(q, k, x, need_weights=True)
        x = self.norm1(x + attn)
        x = self.norm2(x + self.linear2(self.act(self.linear1(x))))
        return x.view(H, W, N, C).permute(2, 3, 0, 1)

    @staticmethod
    def build_2d_sincos_pos_emb(
        w: int,
        h: int,
        embed_dim: int,
        temp: float = 10_000.0,
        device: Optional[torch.device] = None,
        dtype: Optional[torch.dtype] = None,
    ) -> torch.Tensor:
        xs = torch.arange(w, device=device, dtype=dtype)
        ys = torch.arange(h, device=device, dtype=dtype)
        grid_x, grid_y = torch.meshgrid([xs, ys], indexing="ij")
        pos_dim = embed_dim // 4
        omega = torch.arange(pos_dim, device=device, dtype=dtype) / pos_dim
        omega = 1.0 / (temp**omega)
        out_x = grid_x.reshape(-1, 1) * omega.view(1, -1)
        out_y = grid_y.reshape(-1, 1) * omega.view(1, -1)
        pos_emb = torch.cat([out_x.sin(), out_x.cos(), out_y.sin(), out_y.cos()], 1)
        return pos_emb.unsqueeze(1)


def build() -> nn.Module:
    return AIFI().half().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator).half(),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
CALL = "xs = torch.arange(w, device=device, dtype=dtype)"
