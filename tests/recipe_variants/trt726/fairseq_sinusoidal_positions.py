"""A grow-only table of sinusoidal position embeddings, rebuilt when the padded positions of a longer
sentence pass its rows: fairseq's ``SinusoidalPositionalEmbedding`` (used by its transformer and speech
models), the miss read through a local name and stored only with ``auto_expand``.

Reduced from facebookresearch/fairseq at 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99,
fairseq/modules/sinusoidal_positional_embedding.py: ``__init__`` registers the table for ``init_size``
positions (:25-31); ``forward`` takes ``max_pos = self.padding_idx + 1 + seq_len`` from
``torch.onnx.operators.shape_as_tensor(input)`` (:80-83), and ``if max_pos > self.weights.size(0):``
(:85) builds the table for ``max_pos`` rows and keeps it when ``self.auto_expand`` (:91-95); the
positions come from ``utils.make_positions`` (fairseq/utils.py:256-266) and index the table (:120-122).
Written here in our own words, without the incremental-decoding and ``onnx_trace`` branches; a small
``init_size`` so that the example's sentence already grows the table.
"""

import math

import torch
import torch.onnx.operators
from torch import nn


def make_positions(tokens: torch.Tensor, padding_idx: int) -> torch.Tensor:
    mask = tokens.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositions(nn.Module):
    def __init__(self, embedding_dim: int = 6, padding_idx: int = 1, init_size: int = 4,
                 auto_expand: bool = True) -> None:
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.register_buffer("weights", self.get_embedding(init_size, embedding_dim, padding_idx), persistent=False)
        self.auto_expand = auto_expand

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim: int, padding_idx: int) -> torch.Tensor:
        half = embedding_dim // 2
        step = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -step)
        angles = torch.arange(num_embeddings, dtype=torch.float)[:, None] * freqs[None, :]
        table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1).view(num_embeddings, -1)
        table[padding_idx, :] = 0
        return table

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        shape = torch.onnx.operators.shape_as_tensor(tokens)
        bsz, seq_len = shape[0], shape[1]
        max_pos = self.padding_idx + 1 + seq_len
        weights = self.weights
        if max_pos > self.weights.size(0):
            weights = self.get_embedding(max_pos, self.embedding_dim, self.padding_idx).to(self.weights)
            if self.auto_expand:
                self.weights = weights
        positions = make_positions(tokens, self.padding_idx)
        return weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


def build() -> nn.Module:
    return SinusoidalPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    tokens = torch.randint(2, 9, (2, 6), generator=generator)
    tokens[1, -2:] = 1  # padding
    return (tokens,)


DYNAMIC = {"tokens": {1: "seq"}}
