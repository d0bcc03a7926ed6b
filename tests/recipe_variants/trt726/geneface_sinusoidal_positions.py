"""fairseq's sinusoidal positions as copied before fairseq 0.12 into speech-driven models: a plain attribute
table, rebuilt when ``self.weights is None or max_pos > self.weights.size(0)``, then moved to the module's
dtype and device on every call (``self.weights = self.weights.to(self._float_tensor)``).

Reduced from yerfor/GeneFace at 921631df904197534430c14f36007ce87b73bfa4, modules/audio2motion/vae.py:
``SinusoidalPositionalEmbedding.__init__`` builds the table for ``init_size`` positions and registers
``_float_tensor`` (:39-48); ``forward`` rebuilds it for ``max_pos = self.padding_idx + 1 + seq_len`` at
:71-79 and converts it at :80, then indexes it by ``make_positions`` (:19-31, :87-88); ``FVAE.forward`` adds
``self.embed_positions(z.transpose(1,2).abs().sum(-1)).transpose(1,2)`` to its latent (padding index 0,
so an all-zero frame gets no position). Written here in our own words: the embedding under a wrapper that
adds it to its input; four positions at construction (the original builds 2001) so that the example's
sequence already grows the table.
"""

import math

import torch
from torch import nn


def make_positions(tensor: torch.Tensor, padding_idx: int) -> torch.Tensor:
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim: int, padding_idx: int, init_size: int = 4) -> None:
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.weights = SinusoidalPositionalEmbedding.get_embedding(init_size, embedding_dim, padding_idx)
        self.register_buffer("_float_tensor", torch.zeros(1))

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim: int, padding_idx=None) -> torch.Tensor:
        half = embedding_dim // 2
        step = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -step)
        angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1).view(num_embeddings, -1)
        if padding_idx is not None:
            table[padding_idx, :] = 0
        return table

    def forward(self, input):
        bsz, seq_len = input.shape[:2]
        max_pos = self.padding_idx + 1 + seq_len
        if self.weights is None or max_pos > self.weights.size(0):
            self.weights = SinusoidalPositionalEmbedding.get_embedding(max_pos, self.embedding_dim,
                                                                       self.padding_idx)
        self.weights = self.weights.to(self._float_tensor)
        positions = make_positions(input, self.padding_idx)
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


class LatentPositions(nn.Module):
    def __init__(self, latent_size: int = 4) -> None:
        super().__init__()
        self.embed_positions = SinusoidalPositionalEmbedding(latent_size, 0)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        position = self.embed_positions(z.transpose(1, 2).abs().sum(-1)).transpose(1, 2)
        return z + position


def build() -> nn.Module:
    return LatentPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    z = torch.randn(2, 4, 6, generator=generator)
    z[1, :, -1] = 0.0  # an all-zero frame: the padding position
    return (z,)


DYNAMIC = {"z": {2: "frames"}}
