"""stable-audio-tools' scaled sinusoidal position embedding: ``torch.arange`` positions under an ``is None`` test.

Reduced from stable-audio-tools 0.0.19 (PyPI; Stability-AI/stable-audio-tools),
stable_audio_tools/models/transformer.py: ``ScaledSinusoidalEmbedding`` (lines 68-90) keeps a float32
``inv_freq`` buffer; its ``forward`` takes ``pos = torch.arange(seq_len, device=device)`` when no positions
are given (int64, line 83), then ``emb = einsum('i, j -> i j', pos, self.inv_freq)`` (line 88, ``from torch
import nn, einsum`` at line 7) and returns the scaled sines and cosines; ``ContinuousTransformer`` builds it
with ``use_sinusoidal_emb`` (line 761) and adds it to its input (line 834). Kept: the ``if pos is None`` and
``if seq_start_pos is not None`` tests (the latter subtracting per-sequence starts), the imported ``einsum``.
Reduced: the transformer around it is one linear layer. Eager mode promotes the int64 positions to float32;
the exported ``Einsum`` keeps both types and ONNX Runtime refuses to load the graph. Written here in our own
words.
"""

import torch
from torch import einsum, nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}}


class SinusoidalPositions(nn.Module):
    def __init__(self, dim: int, theta: float = 10000) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1) * dim ** -0.5)
        half_dim = dim // 2
        freq_seq = torch.arange(half_dim).float() / half_dim
        self.register_buffer("inv_freq", theta ** -freq_seq, persistent=False)

    def forward(self, x, pos=None, seq_start_pos=None):
        seq_len, device = x.shape[1], x.device
        if pos is None:
            pos = torch.arange(seq_len, device=device)
        if seq_start_pos is not None:
            pos = pos - seq_start_pos[..., None]
        emb = einsum('i, j -> i j', pos, self.inv_freq)
        emb = torch.cat((emb.sin(), emb.cos()), dim=-1)
        return emb * self.scale


class Continuous(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.pos_emb = SinusoidalPositions(dim)
        self.project_in = nn.Linear(dim, dim)

    def forward(self, x):
        x = self.project_in(x)
        return x + self.pos_emb(x)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Continuous().eval()


def inputs(generator):
    return (torch.rand(2, 6, 8, generator=generator),)
