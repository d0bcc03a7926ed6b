"""x-transformers' scaled sinusoidal embedding: positions from ``arange`` (imported from torch) plus an offset.

Reduced from x-transformers 2.26.4 (PyPI; lucidrains/x-transformers), x_transformers/x_transformers.py:
``ScaledSinusoidalEmbedding`` (lines 405-433) keeps ``inv_freq = theta ** -freq_seq`` as a float32 buffer and,
in ``forward``, takes ``pos = arange(seq_len, device=device) + offset`` (int64, line 426; ``arange`` and
``einsum`` come from ``from torch import ...`` at line 17), ``emb = einsum('i, j -> i j', pos, self.inv_freq)``
(line 431), joins its sines and cosines and scales them; ``TransformerWrapper`` adds it to the token
embeddings with ``scaled_sinu_pos_emb=True`` (line 3856). Kept: the bare imported ``arange`` and ``einsum``,
the offset, the scale parameter. Reduced: no ``pos`` or ``seq_start_pos`` given (the ``exists`` tests take
their ``None`` path), the embedding added to the tokens directly. Eager mode promotes the int64 positions
to float32; the exported ``Einsum`` keeps both types and ONNX Runtime refuses to load the graph. Written
here in our own words.
"""

import torch
from torch import arange, cat, einsum, nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}}


class ScaledSinusoidal(nn.Module):
    def __init__(self, dim: int, theta: float = 10000) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1) * dim ** -0.5)
        half_dim = dim // 2
        freq_seq = arange(half_dim).float() / half_dim
        self.register_buffer("inv_freq", theta ** -freq_seq, persistent=False)

    def forward(self, x, offset: int = 0):
        seq_len, device = x.shape[1], x.device
        pos = arange(seq_len, device=device) + offset
        emb = einsum('i, j -> i j', pos, self.inv_freq)
        emb = cat((emb.sin(), emb.cos()), dim=-1)
        return emb * self.scale


class Tokens(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.pos_emb = ScaledSinusoidal(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return self.proj(x + self.pos_emb(x))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Tokens().eval()


def inputs(generator):
    return (torch.rand(2, 7, 8, generator=generator),)
