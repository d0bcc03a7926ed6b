"""bghira's SimpleTuner (a trainer): its modified copy of Lumina 2's transformer keeps the SDPA processor
(``Lumina2AttnProcessor2_0``), which with a ``base_sequence_length`` scales by
``softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale`` after
``batch_size, sequence_length, _ = hidden_states.shape``, repeats each key/value head for its group of
query heads, and calls ``F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask,
scale=softmax_scale)`` on one line.

Reduced from bghira/SimpleTuner @ bc8e6ab7738ce457a2ed8eb2d26cadd91c6442cb,
simpletuner/helpers/models/lumina2/transformer.py, ``Lumina2AttnProcessor2_0.__call__`` (lines
142-211; the size at line 151, the scale at lines 184-187, the head repetition at lines 190-193, the
call at line 204). Kept: the projections with fewer key/value heads, the per-head views, the
two arms of the scale, the ``unsqueeze(3).repeat(...).flatten(2, 3)`` repetition, the transposes, the
one-line call and the output projection (a linear layer and a dropout, as ``to_out[0]``/``to_out[1]``).
Reduced: the processor and its ``Attention`` are one module, the base length an attribute; no
attention mask (the self-attention of a batch of one resolution), no q/k norms, no rotary step.
Written here in our own words.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Lumina2Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4, kv_heads: int = 1, base_sequence_length: int = 25) -> None:
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.scale = (dim // heads) ** -0.5
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_k = nn.Linear(dim, kv_heads * (dim // heads), bias=False)
        self.to_v = nn.Linear(dim, kv_heads * (dim // heads), bias=False)
        self.to_out = nn.ModuleList([nn.Linear(dim, dim, bias=False), nn.Dropout(0.0)])
        self.base_sequence_length = base_sequence_length

    def forward(self, hidden_states):
        attn, base_sequence_length, attention_mask = self, self.base_sequence_length, None
        batch_size, sequence_length, _ = hidden_states.shape
        query = attn.to_q(hidden_states)
        key = attn.to_k(hidden_states)
        value = attn.to_v(hidden_states)
        head_dim = query.shape[-1] // attn.heads
        kv_heads = attn.kv_heads
        query = query.view(batch_size, -1, attn.heads, head_dim)
        key = key.view(batch_size, -1, kv_heads, head_dim)
        value = value.view(batch_size, -1, kv_heads, head_dim)

        if base_sequence_length is not None:
            softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale
        else:
            softmax_scale = attn.scale

        n_rep = attn.heads // kv_heads
        if n_rep >= 1:
            key = key.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3)
            value = value.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3)
        query, key, value = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        hidden_states = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask, scale=softmax_scale)
        hidden_states = hidden_states.transpose(1, 2).reshape(batch_size, -1, attn.heads * head_dim)
        return attn.to_out[1](attn.to_out[0](hidden_states))


def build() -> nn.Module:
    return Lumina2Attention()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 36) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, tokens, 16, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
