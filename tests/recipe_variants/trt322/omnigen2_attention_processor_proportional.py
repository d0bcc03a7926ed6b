"""VectorSpaceLab's OmniGen2: its SDPA attention processor (``OmniGen2AttnProcessor``, derived from
Lumina 2's) takes a ``base_sequence_length`` and, where one is given, scales by
``softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale``,
``sequence_length`` unpacked from ``hidden_states.shape``; the key/value heads are widened with
``repeat_interleave`` before ``F.scaled_dot_product_attention(query, key, value,
attn_mask=attention_mask, scale=softmax_scale)``.

Reduced from VectorSpaceLab/OmniGen2 @ 0f72fa92564d9f8ba76f53fcc3c05aca2372458f,
omnigen2/models/attention_processor.py, ``OmniGen2AttnProcessor.__call__`` (lines 272-357; the size at
line 295, the scale at lines 329-332, the mask at lines 336-337, the head repetition at lines 344-345,
the call at lines 347-349). Kept: q/k/v projections with fewer key/value heads, per-head views,
the two arms of the scale, the boolean mask viewed as ``(batch, 1, 1, tokens)``, the transposes, the
``repeat_interleave`` of keys and values, the call and the output projection. Reduced: the processor
and its ``Attention`` are one module whose ``base_sequence_length`` is an attribute, and the q/k
RMS norms and the complex rotary embedding are left out. Written here in our own words.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class OmniAttention(nn.Module):
    def __init__(self, dim: int = 24, heads: int = 4, kv_heads: int = 2, base_sequence_length: int = 7) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_q = nn.Linear(dim, dim)
        self.to_k = nn.Linear(dim, kv_heads * (dim // heads))
        self.to_v = nn.Linear(dim, kv_heads * (dim // heads))
        self.to_out = nn.Linear(dim, dim)
        self.base_sequence_length = base_sequence_length

    def forward(self, hidden_states, attention_mask):
        attn, base_sequence_length = self, self.base_sequence_length
        batch_size, sequence_length, _ = hidden_states.shape
        query = attn.to_q(hidden_states)
        key = attn.to_k(hidden_states)
        value = attn.to_v(hidden_states)
        head_dim = query.shape[-1] // attn.heads
        kv_heads = key.shape[-1] // head_dim
        query = query.view(batch_size, -1, attn.heads, head_dim)
        key = key.view(batch_size, -1, kv_heads, head_dim)
        value = value.view(batch_size, -1, kv_heads, head_dim)

        if base_sequence_length is not None:
            softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale
        else:
            softmax_scale = attn.scale

        if attention_mask is not None:
            attention_mask = attention_mask.bool().view(batch_size, 1, 1, -1)
        query, key, value = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        key = key.repeat_interleave(query.size(-3) // key.size(-3), -3)
        value = value.repeat_interleave(query.size(-3) // value.size(-3), -3)
        hidden_states = F.scaled_dot_product_attention(
            query, key, value, attn_mask=attention_mask, scale=softmax_scale
        )
        hidden_states = hidden_states.transpose(1, 2).reshape(batch_size, -1, attn.heads * head_dim)
        return attn.to_out(hidden_states)


def build() -> nn.Module:
    return OmniAttention()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 11) -> tuple[torch.Tensor, ...]:
    hidden = torch.randn(batch, tokens, 24, generator=generator)
    mask = torch.arange(tokens)[None, :] < torch.randint(1, tokens + 1, (batch, 1), generator=generator)
    return hidden, mask.to(torch.int64)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}
