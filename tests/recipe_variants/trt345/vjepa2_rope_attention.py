"""V-JEPA 2's rotary self-attention: pairs of channels rotated with ``unflatten(-1, (-1, 2))``.

Reduced from transformers 5.24.0, models/vjepa2/modeling_vjepa2.py: ``rotate_queries_or_keys``
(lines 180-204) splits the last axis into pairs with ``x.unflatten(-1, (-1, 2))``, rotates each pair
and flattens them back; ``VJEPA2RopeAttention.forward`` (lines 295-330) rotates the queries and keys
that way, attends, and folds the heads back with ``context_layer.size()[:-2] + (all_head_size,)``
(line 326), a size read from a tensor computed from the rotated queries. Here one rotation over
the token positions of the whole head dimension. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def rotate_queries_or_keys(x, pos):
    dim = x.size(-1)
    omega = torch.arange(dim // 2, dtype=x.dtype, device=x.device) / (dim / 2.0)
    omega = 1.0 / 10000 ** omega
    freq = pos.unsqueeze(-1) * omega
    emb_sin = freq.sin().repeat(1, 2)
    emb_cos = freq.cos().repeat(1, 2)
    y = x.unflatten(-1, (-1, 2))
    y1, y2 = y.unbind(dim=-1)
    y = torch.stack((-y2, y1), dim=-1).flatten(-2)
    return x * emb_cos + y * emb_sin


class RopeAttention(nn.Module):
    def __init__(self, hidden_size: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden_size // heads
        self.query = nn.Linear(hidden_size, hidden_size)
        self.key = nn.Linear(hidden_size, hidden_size)
        self.value = nn.Linear(hidden_size, hidden_size)
        self.proj = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        hidden_shape = (*hidden_states.shape[:-1], self.heads, self.head_dim)
        query = self.query(hidden_states).view(hidden_shape).transpose(1, 2)
        key = self.key(hidden_states).view(hidden_shape).transpose(1, 2)
        value = self.value(hidden_states).view(hidden_shape).transpose(1, 2)
        pos = torch.arange(hidden_states.shape[1], dtype=hidden_states.dtype, device=hidden_states.device)
        query, key = rotate_queries_or_keys(query, pos), rotate_queries_or_keys(key, pos)
        context = F.scaled_dot_product_attention(query, key, value)
        context = context.permute(0, 2, 1, 3).contiguous()
        return self.proj(context.reshape(context.size()[:-2] + (self.heads * self.head_dim,)))


def build() -> nn.Module:
    return RopeAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 32, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
