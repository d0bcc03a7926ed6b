"""Alpha-VLLM's Lumina-Next (the ``lumina_next_t2i_mini`` NextDiT): with ``proportional_attn`` on, each
self-attention scales its scores by ``softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) /
self.head_dim)``, ``seqlen`` unpacked from ``x.shape`` (``bsz, seqlen, _ = x.shape``), and without flash
attention passes it as ``F.scaled_dot_product_attention(..., attn_mask=..., scale=softmax_scale)``; the
other arm binds ``math.sqrt(1 / self.head_dim)``. The square root is around the quotient of the log
(not a product with a configured scale, as in diffusers' processors).

Reduced from Alpha-VLLM/Lumina-T2X @ 1c606962f95899da711633ee3a333d21c753e2d9,
lumina_next_t2i_mini/models/nextdit.py, ``Attention.forward`` (lines 287-392; the size at line 307, the
scale at lines 323-326, the SDPA branch at lines 357-373). Kept: the q/k/v projections, per-head
views, the rotary step on queries and keys, the proportional/plain scale arms, the key/value head
repetition (``unsqueeze(3).repeat(...).flatten(2, 3)``), the boolean padding mask viewed as
``(bsz, 1, 1, seqlen)`` and expanded over heads and queries, the permutes and the output projection.
Reduced: the q/k RMS norms are left out, the complex rotary ``freqs_cis`` is a real rotation by the
token's position, there is no flash-attention branch and no caption cross-attention (``wk_y``).
Written here in our own words.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def rotate(x, positions):
    half = x.shape[-1] // 2
    freqs = positions[:, None] / (10000 ** (torch.arange(half, dtype=x.dtype) / half))
    cos, sin = freqs.cos()[None, :, None, :], freqs.sin()[None, :, None, :]
    first, second = x[..., :half], x[..., half:]
    return torch.cat([first * cos - second * sin, first * sin + second * cos], -1)


class NextAttention(nn.Module):
    def __init__(self, dim: int = 16, n_heads: int = 4, n_kv_heads: int = 2, base_seqlen: int = 16) -> None:
        super().__init__()
        self.n_local_heads, self.n_local_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        self.proportional_attn = True
        self.base_seqlen = base_seqlen

    def forward(self, x, x_mask):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_kv_heads, self.head_dim)
        positions = torch.arange(x.shape[1], dtype=x.dtype)
        xq, xk = rotate(xq, positions), rotate(xk, positions)

        if self.proportional_attn:
            softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) / self.head_dim)
        else:
            softmax_scale = math.sqrt(1 / self.head_dim)

        n_rep = self.n_local_heads // self.n_local_kv_heads
        if n_rep >= 1:
            xk = xk.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3)
            xv = xv.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3)
        output = F.scaled_dot_product_attention(
            xq.permute(0, 2, 1, 3),
            xk.permute(0, 2, 1, 3),
            xv.permute(0, 2, 1, 3),
            attn_mask=x_mask.bool().view(bsz, 1, 1, seqlen).expand(-1, self.n_local_heads, seqlen, -1),
            scale=softmax_scale,
        ).permute(0, 2, 1, 3)
        return self.wo(output.flatten(-2))


def build() -> nn.Module:
    return NextAttention()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 12) -> tuple[torch.Tensor, ...]:
    x = torch.randn(batch, tokens, 16, generator=generator)
    # padding at the end of each row, never the first token (a row attending to nothing is NaN)
    keep = torch.arange(tokens)[None, :] < torch.randint(1, tokens + 1, (batch, 1), generator=generator)
    return x, keep.to(torch.int64)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}, "x_mask": {0: "batch", 1: "tokens"}}
