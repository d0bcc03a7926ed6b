"""attention-gym's ALiBi ``score_mod``: a per-head linear bias on the query/key distance.

Reduced from meta-pytorch/attention-gym at commit a72972153a98ddb02aa2b57d7b3799fb42170b74,
attn_gym/mods/alibi.py: ``generate_alibi_bias`` (lines 7-22), a factory whose closure adds
``(kv_idx - q_idx) * exp2(-(h + 1) * 8 / H)`` to the score, the head index entering the slope as a
tensor. The library hands such a ``score_mod`` to ``flex_attention(q, k, v, score_mod=...)``; the
attention block around it is ours. Written here in our own words. Form kept: the factory's
closure, the head count fixed when the model is built, passed as ``score_mod=`` to the function
reached through its module (``torch.nn.attention.flex_attention.flex_attention``).
"""

import torch
import torch.nn.attention.flex_attention
from torch import nn


def generate_alibi_bias(num_heads: int):
    def alibi_mod(score, b, h, q_idx, kv_idx):
        slope = torch.exp2(-((h + 1) * 8.0 / num_heads))
        return score + (kv_idx - q_idx) * slope

    return alibi_mod


class AlibiSelfAttention(nn.Module):
    def __init__(self, dim: int = 24, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.alibi = generate_alibi_bias(heads)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        out = torch.nn.attention.flex_attention.flex_attention(q, k, v, score_mod=self.alibi)
        return self.proj(out.transpose(1, 2).reshape(b, n, d))


def build() -> nn.Module:
    return AlibiSelfAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
