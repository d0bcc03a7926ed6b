"""diffusers' Lumina-Next attention: with rotary keys and a base sequence length, the softmax scale
is proportional to the square root of the log of the number of tokens to that base
(``softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale``,
``sequence_length`` unpacked from ``hidden_states.shape``), bound in a nested ``if``/``else`` whose
other arms give ``None`` or ``attn.scale``, and handed to
``F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask, scale=softmax_scale)``.

Reduced from huggingface/diffusers @ pypi:diffusers==0.42.1 (the PyPI wheel),
src/diffusers/models/attention_processor.py, ``LuminaAttnProcessor2_0.__call__`` (lines 3582-3665; the
scale at lines 3635-3641, the call at lines 3660-3662), used by ``LuminaNextDiT2DModel``. Written here
in our own words: the processor and its ``Attention`` are one module, the rotary embedding is a
real-valued rotation by the token's position, there are as many key/value heads as query heads (no
repeat) and no attention mask.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def rotate(x, positions):
    half = x.shape[-1] // 2
    freqs = positions[:, None] / (10000 ** (torch.arange(half, dtype=x.dtype) / half))
    cos, sin = freqs.cos()[None, :, None, :], freqs.sin()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1)


class LuminaAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2, base_sequence_length: int = 16) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_q, self.to_k, self.to_v, self.to_out = (nn.Linear(dim, dim) for _ in range(4))
        self.base_sequence_length = base_sequence_length

    def forward(self, hidden_states, encoder_hidden_states):
        key_rotary_emb = torch.arange(encoder_hidden_states.shape[1], dtype=hidden_states.dtype)
        query_rotary_emb = torch.arange(hidden_states.shape[1], dtype=hidden_states.dtype)
        base_sequence_length = self.base_sequence_length
        attn = self
        batch_size, sequence_length, _ = hidden_states.shape

        query = attn.to_q(hidden_states)
        key = attn.to_k(encoder_hidden_states)
        value = attn.to_v(encoder_hidden_states)
        head_dim = query.shape[-1] // attn.heads
        query = query.view(batch_size, -1, attn.heads, head_dim)
        key = key.view(batch_size, -1, attn.heads, head_dim)
        value = value.view(batch_size, -1, attn.heads, head_dim)
        if query_rotary_emb is not None:
            query = rotate(query, query_rotary_emb)
        if key_rotary_emb is not None:
            key = rotate(key, key_rotary_emb)

        if key_rotary_emb is None:
            softmax_scale = None
        else:
            if base_sequence_length is not None:
                softmax_scale = math.sqrt(math.log(sequence_length, base_sequence_length)) * attn.scale
            else:
                softmax_scale = attn.scale

        query, key, value = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        hidden_states = F.scaled_dot_product_attention(
            query, key, value, attn_mask=None, scale=softmax_scale
        )
        hidden_states = hidden_states.transpose(1, 2).reshape(batch_size, -1, attn.heads * head_dim)
        return attn.to_out(hidden_states)


def build() -> nn.Module:
    return LuminaAttention()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 12, captions: int = 5) -> tuple[torch.Tensor, ...]:
    return torch.randn(batch, tokens, 16, generator=generator), torch.randn(batch, captions, 16, generator=generator)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}, "encoder_hidden_states": {0: "batch", 1: "captions"}}
