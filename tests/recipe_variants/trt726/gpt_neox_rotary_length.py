"""A grow-only rotary table keyed by the length it was built for, filled by a method: Hugging Face's
GPT-NeoX rotary embedding (and Llama's, Mistral's, Qwen2's before transformers 4.38) rebuilds its cos/sin
buffers only when ``seq_len > self.max_seq_len_cached``.

Reduced from transformers 4.36.2 (the wheel on PyPI), transformers/models/gpt_neox/modeling_gpt_neox.py:
``GPTNeoXRotaryEmbedding.__init__`` builds the tables for ``max_position_embeddings`` (:529-541);
``_set_cos_sin_cache`` records ``self.max_seq_len_cached = seq_len`` and registers ``cos_cached`` and
``sin_cached`` for that many positions (:543-551); ``forward`` calls it when ``seq_len >
self.max_seq_len_cached`` and returns the first ``seq_len`` rows (:553-561). The attention passes
``seq_len = key.shape[-2]`` (:196-199) and indexes the tables by position ids (``apply_rotary_pos_emb``,
:619-643). Written here in our own words: the rotary module under a wrapper that rotates its input (laid
out as the attention's keys, ``[batch, heads, seq_len, head_size]``) at positions ``0 .. seq_len - 1``;
four positions at construction so that the example's sequence already grows the tables.
"""

import torch
from torch import nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int, max_position_embeddings: int = 4, base: int = 10000, device=None) -> None:
        super().__init__()
        self.dim = dim
        self.base = base
        inv_freq = 1.0 / (self.base ** (torch.arange(0, self.dim, 2).float().to(device) / self.dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(seq_len=max_position_embeddings, device=self.inv_freq.device,
                                dtype=torch.get_default_dtype())

    def _set_cos_sin_cache(self, seq_len, device, dtype):
        self.max_seq_len_cached = seq_len
        t = torch.arange(self.max_seq_len_cached, device=device, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(dtype), persistent=False)
        self.register_buffer("sin_cached", emb.sin().to(dtype), persistent=False)

    def forward(self, x, seq_len=None):
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len=seq_len, device=x.device, dtype=x.dtype)
        return self.cos_cached[:seq_len].to(dtype=x.dtype), self.sin_cached[:seq_len].to(dtype=x.dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class RotateKeys(nn.Module):
    def __init__(self, head_size: int = 4) -> None:
        super().__init__()
        self.rotary_emb = RotaryEmbedding(head_size)

    def forward(self, key: torch.Tensor) -> torch.Tensor:
        seq_len = key.shape[-2]
        cos, sin = self.rotary_emb(key, seq_len=seq_len)
        position_ids = torch.arange(seq_len, device=key.device)[None, :]
        cos, sin = cos[position_ids].unsqueeze(1), sin[position_ids].unsqueeze(1)
        return key * cos + rotate_half(key) * sin


def build() -> nn.Module:
    return RotateKeys()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 4, generator=generator),)


DYNAMIC = {"key": {2: "seq"}}
