"""lucidrains' rotary-embedding-torch rotates queries and keys with ``rotate_queries_or_keys``: it takes the
device, dtype and length of the tensor it rotates and asks ``get_seq_pos`` for the positions, an arange over
``seq_len`` made with ``dtype = dtype`` (plus the offset, over the interpolation factor); the positions
times the frequencies give the angles whose cosine and sine rotate the feature pairs. In a half-precision
transformer the queries are float16, so the arange is float16 and exports as a float16 ``Range`` node, which
ONNX Runtime refuses.

Reduced from lucidrains/rotary-embedding-torch @ 8bb4643d1c29f944c47d2e807452ac437689af18,
rotary_embedding_torch/rotary_embedding_torch.py: ``RotaryEmbedding.get_seq_pos`` (lines 171-175),
``rotate_queries_or_keys`` (lines 177-191), ``RotaryEmbedding.forward`` (lines 320-350), ``apply_rotary_emb``
and ``rotate_half`` (lines 35-75). What is reduced: language-model frequencies only, the frequency cache and
xpos scaling are left out, einops rearranges are written with reshape/stack, and the embedding is used by one
single-head self-attention layer that runs in float16 (the layer is our own). Written here in our own words.
"""

import torch
from torch import nn


def rotate_half(x):
    x = x.unflatten(-1, (-1, 2))
    x1, x2 = x.unbind(dim=-1)
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_emb(freqs, t, start_index=0, scale=1.0, seq_dim=-2):
    dtype = t.dtype
    seq_len = t.shape[seq_dim]
    freqs = freqs[-seq_len:]
    end_index = start_index + freqs.shape[-1]
    t_left, t_middle, t_right = t[..., :start_index], t[..., start_index:end_index], t[..., end_index:]
    t_transformed = (t_middle * freqs.cos() * scale) + (rotate_half(t_middle) * freqs.sin() * scale)
    return torch.cat((t_left, t_transformed, t_right), dim=-1).type(dtype)


class RotaryEmbedding(nn.Module):
    def __init__(self, dim: int, theta: float = 10000.0) -> None:
        super().__init__()
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
        self.freqs = nn.Parameter(freqs, requires_grad=False)
        self.interpolate_factor = 1.0
        self.default_seq_dim = -2

    def get_seq_pos(self, seq_len, device, dtype, offset=0):
        return (torch.arange(seq_len, device = device, dtype = dtype) + offset) / self.interpolate_factor

    def rotate_queries_or_keys(self, t, offset=0):
        device, dtype, seq_len = t.device, t.dtype, t.shape[self.default_seq_dim]
        seq = self.get_seq_pos(seq_len, device=device, dtype=dtype, offset=offset)
        freqs = self.forward(seq)
        return apply_rotary_emb(freqs, t, seq_dim=self.default_seq_dim)

    def forward(self, t):
        freqs = torch.einsum("..., f -> ... f", t.type(self.freqs.dtype), self.freqs)
        return torch.stack((freqs, freqs), dim=-1).flatten(-2)


class RotaryAttention(nn.Module):
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.qkv = nn.Linear(width, 3 * width)
        self.rotary = RotaryEmbedding(width // 2)
        self.out = nn.Linear(width, width)
        self.scale = width ** -0.5

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        q = self.rotary.rotate_queries_or_keys(q)
        k = self.rotary.rotate_queries_or_keys(k)
        attn = (q @ k.transpose(-1, -2) * self.scale).softmax(-1)
        return self.out(attn @ v)


def build() -> nn.Module:
    return RotaryAttention().half().eval()


def inputs(generator: torch.Generator, batch: int = 2, length: int = 8) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, length, 16, generator=generator).half(),)


DYNAMIC = {"tokens": {0: "batch", 1: "sequence"}}
CALL = "return (torch.arange(seq_len, device = device, dtype = dtype) + offset) / self.interpolate_factor"
