"""x-transformers' attention: an ALiBi bias and a look-back mask from the sequence lengths, and a per-head gate.

Reduced from lucidrains/x-transformers @ 9252ed7838021ee61e6c5be0930b3a9a88efdf06, x_transformers/x_transformers.py:
``AlibiPositionalBias.forward`` (lines 646-661) makes the bias from the query and key lengths ``i, j`` with
``-einx.subtract('j, i -> 1 i j', context_arange, seq_arange).abs()`` (line 654), scales it by each head's slope and
pads the heads without one; ``Attention.forward`` takes ``i, j`` from the queries and keys (line 2390), adds the bias
(line 2472), masks keys further back than ``max_attend_past`` with ``einx.subtract('i, j -> 1 1 i j', range_q,
range_k)`` (lines 2451-2457) and gates each head's output with ``einx.multiply('b n h, b h n d ->b h n d',
head_gate.sigmoid(), out)`` (line 2529). Queries are the new tokens and keys the memory before them too, so ``i`` and
``j`` are the input's lengths. Kept: the three einx calls as written, the slopes (a power-of-two count of ALiBi heads)
and the pad of the heads without ALiBi, the masked softmax. Reduced: the bias is not cached in a buffer (the code
keeps the largest one and slices it), no rotary, no dropout, memories are given to the forward, heads are split and
merged with ``reshape`` instead of einops (``unflatten`` would make the TorchScript exporter fold the lengths into
constants). Written here in our own words.
"""

import math

import einx
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "b", 1: "i"}, "mems": {0: "b", 1: "m"}}
#: The line of the ALiBi bias (the rule's first finding).
CALL = "bias = -einx.subtract('j, i -> 1 i j', context_arange, seq_arange).abs()"


class AlibiPositionalBias(nn.Module):
    def __init__(self, heads: int, total_heads: int):
        super().__init__()
        self.total_heads = total_heads
        start = 2 ** (-2 ** -(math.log2(heads) - 3))
        slopes = torch.tensor([start * start ** k for k in range(heads)])
        self.register_buffer('slopes', slopes[:, None, None], persistent=False)

    def forward(self, i, j):
        seq_arange = torch.arange(j - i, j, device=self.slopes.device)
        context_arange = torch.arange(j, device=self.slopes.device)
        bias = -einx.subtract('j, i -> 1 i j', context_arange, seq_arange).abs()
        bias = bias * self.slopes
        num_heads_unalibied = self.total_heads - bias.shape[-3]
        return F.pad(bias, (0, 0, 0, 0, 0, num_heads_unalibied))


class Attention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 4, dim_head: int = 3, alibi_heads: int = 2,
                 max_attend_past: int = 3):
        super().__init__()
        self.heads, self.dim_head, self.max_attend_past = heads, dim_head, max_attend_past
        self.scale = dim_head ** -0.5
        self.to_q = nn.Linear(dim, heads * dim_head, bias=False)
        self.to_kv = nn.Linear(dim, 2 * heads * dim_head, bias=False)
        self.rel_pos = AlibiPositionalBias(alibi_heads, heads)
        self.to_v_head_gate = nn.Linear(dim, heads)
        self.to_out = nn.Linear(heads * dim_head, dim, bias=False)

    def split_heads(self, t):
        return t.reshape(*t.shape[:-1], self.heads, self.dim_head).transpose(1, 2)

    def forward(self, x, mems):
        kv_input = torch.cat((mems, x), dim=1)
        q = self.split_heads(self.to_q(x))
        k, v = map(self.split_heads, self.to_kv(kv_input).chunk(2, dim=-1))

        i, j = tuple(t.shape[-2] for t in (q, k))
        sim = q @ k.transpose(-1, -2) * self.scale
        sim = sim + self.rel_pos(i, j)

        range_q = torch.arange(j - i, j, device=x.device)
        range_k = torch.arange(j, device=x.device)
        dist = einx.subtract('i, j -> 1 1 i j', range_q, range_k)
        max_attend_past_mask = dist > self.max_attend_past
        sim = sim.masked_fill(max_attend_past_mask, -torch.finfo(sim.dtype).max)

        out = sim.softmax(dim=-1) @ v
        head_gate = self.to_v_head_gate(x)
        out = einx.multiply('b n h, b h n d ->b h n d', head_gate.sigmoid(), out)
        return self.to_out(out.transpose(1, 2).flatten(2))


def build() -> nn.Module:
    return Attention().eval()


def inputs(generator: torch.Generator, b: int = 2, i: int = 5, m: int = 3) -> tuple[torch.Tensor, ...]:
    """New tokens and the memory before them."""
    return torch.randn(b, i, 8, generator=generator), torch.randn(b, m, 8, generator=generator)
