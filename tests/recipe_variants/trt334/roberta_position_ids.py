"""transformers' RoBERTa embeddings: the position ids count the non-padding tokens of each sequence
(``mask = input_ids.ne(padding_idx).int()``, then ``torch.cumsum(mask, dim=1).type_as(mask)``, plus
the cached length, times the mask), so padding keeps ``padding_idx``; a static method of the
embeddings called through ``self``.

Reduced from transformers 5.24.0 (the PyPI wheel the zoo unpacks),
transformers/models/roberta/modeling_roberta.py, ``RobertaEmbeddings`` lines 59-158 (the cumsum at
line 153). Written here in our own words: word, token-type and position embeddings with a layer
norm, the token types gathered from an all-zero buffer at the position ids, no cache (a first
forward), a small vocabulary and no dropout.
"""

import torch
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, vocab: int = 30, hidden: int = 16, positions: int = 64, padding_idx: int = 1) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.cache_length = 0  # no cached tokens: a first forward
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=padding_idx)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.position_embeddings = nn.Embedding(positions, hidden, padding_idx=padding_idx)
        self.layer_norm = nn.LayerNorm(hidden)
        self.register_buffer("token_type_ids", torch.zeros(1, positions, dtype=torch.long), persistent=False)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        position_ids = self.create_position_ids_from_input_ids(input_ids, self.padding_idx, self.cache_length)
        buffered = self.token_type_ids.expand(position_ids.shape[0], -1)
        token_types = torch.gather(buffered, dim=1, index=position_ids)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_types)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.layer_norm(embeddings)

    @staticmethod
    def create_position_ids_from_input_ids(input_ids, padding_idx, cache_length=0):
        mask = input_ids.ne(padding_idx).int()
        incremental_indices = (torch.cumsum(mask, dim=1).type_as(mask) + cache_length) * mask
        return incremental_indices.long() + padding_idx


def build() -> nn.Module:
    return Embeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(2, 30, (2, 11), generator=generator)
    ids[1, 7:] = 1  # a padded sequence
    return (ids,)


DYNAMIC = {"input_ids": {0: "batch", 1: "length"}}
