"""transformers' ESM embeddings: the same padding-aware position ids as RoBERTa, written as a module
function (``incremental_indices = torch.cumsum(mask, dim=1).type_as(mask) * mask`` of
``input_ids.ne(padding_idx).int()``), after ESM's token dropout, which zeroes masked residues and
rescales by the observed masking ratio, and before the attention mask scales the embeddings.

Reduced from transformers 5.24.0 (the PyPI wheel the zoo unpacks),
transformers/models/esm/modeling_esm.py, ``EsmEmbeddings`` lines 189-262 and
``create_position_ids_from_input_ids`` lines 1021-1034 (the cumsum at line 1033). Written here in
our own words: token dropout always on, a layer norm after the embeddings, a small alphabet.
"""

import torch
from torch import nn


def create_position_ids_from_input_ids(input_ids, padding_idx):
    mask = input_ids.ne(padding_idx).int()
    incremental_indices = torch.cumsum(mask, dim=1).type_as(mask) * mask
    return incremental_indices.long() + padding_idx


class EsmEmbeddings(nn.Module):
    def __init__(self, vocab: int = 33, hidden: int = 16, positions: int = 64, padding_idx: int = 1,
                 mask_token_id: int = 32) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.mask_token_id = mask_token_id
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=padding_idx)
        self.position_embeddings = nn.Embedding(positions, hidden, padding_idx=padding_idx)
        self.layer_norm = nn.LayerNorm(hidden)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        position_ids = create_position_ids_from_input_ids(input_ids, self.padding_idx)
        embeddings = self.word_embeddings(input_ids)
        masked = input_ids == self.mask_token_id
        embeddings = embeddings.masked_fill(masked.unsqueeze(-1), 0.0)
        observed = masked.sum(-1).float() / attention_mask.sum(-1)
        embeddings = embeddings * (1 - 0.15 * 0.8) / (1 - observed)[:, None, None]
        embeddings = embeddings + self.position_embeddings(position_ids)
        embeddings = self.layer_norm(embeddings)
        return embeddings * attention_mask.unsqueeze(-1)


def build() -> nn.Module:
    return EsmEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(4, 30, (2, 12), generator=generator)
    ids[0, 3] = 32  # a masked residue
    ids[1, 8:] = 1  # padding
    return ids, (ids != 1).long()


DYNAMIC = {"input_ids": {0: "batch", 1: "length"}, "attention_mask": {0: "batch", 1: "length"}}
