"""attention-gym's ALiBi ``score_mod``: the head's slope ``2 ** (-8 (h + 1) / H)`` taken with ``torch.exp2``.

Reduced from meta-pytorch/attention-gym at commit a72972153a98ddb02aa2b57d7b3799fb42170b74,
attn_gym/mods/alibi.py: ``generate_alibi_bias`` (lines 7-22), a factory whose closure
``alibi_mod(score, b, h, q_idx, kv_idx)`` adds ``(kv_idx - q_idx) * torch.exp2(-((h + 1) * 8.0 /
num_heads))`` to the score; the head index ``h`` is a tensor there, so ``exp2`` runs on a tensor
while flex attention builds the scores. The library passes the closure to
``flex_attention(q, k, v, score_mod=...)``; the causal self-attention block around it is ours, with
``flex_attention`` imported by name. Written here in our own words. Form kept: ``torch.exp2`` inside
the closure of a factory, its argument computed from the head index.
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import flex_attention


def generate_alibi_bias(num_heads: int):
    def alibi_mod(score, b, h, q_idx, kv_idx):
        scale = torch.exp2(-((h + 1) * 8.0 / num_heads))
        bias = (kv_idx - q_idx) * scale
        return score + bias

    return alibi_mod


class AlibiBlock(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.score_mod = generate_alibi_bias(heads)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = flex_attention(q, k, v, score_mod=self.score_mod)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


def build() -> nn.Module:
    return AlibiBlock().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
