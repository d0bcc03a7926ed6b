"""Splinter's question positions: the tokens equal to the question token are found with
``torch.where``; their row indices come out sorted, so each token's column among its row's
questions is its flat index minus the first index of its row, found by searching the row
indices in themselves (``first_idx = torch.searchsorted(rows, rows, side="left")``). The
positions are scattered into a table padded with the pad id, and the hidden states are read at
those positions.

Reduced from transformers 5.24.0 (the PyPI wheel the zoo unpacks),
transformers/models/splinter/modeling_splinter.py, ``SplinterForPreTraining._prepare_question_positions``
lines 720-736 (the search at line 728), called from ``forward`` at line 666. Written here in our
own words: the table is as wide as the sequence rather than as the largest count of questions
(``torch.bincount(rows).max()``, a size read from the data), the check that every row holds a
question is left out, and an embedding and a linear layer stand in for the encoder and the span
head.
"""

import torch
from torch import nn


class QuestionPositions(nn.Module):
    def __init__(self, vocab: int = 32, hidden: int = 8, question_token_id: int = 3, pad_token_id: int = 0) -> None:
        super().__init__()
        self.question_token_id = question_token_id
        self.pad_token_id = pad_token_id
        self.embed = nn.Embedding(vocab, hidden)
        self.head = nn.Linear(hidden, hidden)

    def _prepare_question_positions(self, input_ids: torch.Tensor) -> torch.Tensor:
        rows, flat_positions = torch.where(input_ids == self.question_token_id)
        # the row indices are ascending, so a row's first question is where its index first appears
        first_idx = torch.searchsorted(rows, rows, side="left")
        cols = torch.arange(rows.size(0), device=rows.device) - first_idx
        positions = torch.full((input_ids.size(0), input_ids.size(1)), self.pad_token_id, dtype=torch.long,
                               device=input_ids.device)
        positions[rows, cols] = flat_positions
        return positions

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.head(self.embed(input_ids))
        positions = self._prepare_question_positions(input_ids)
        index = positions.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
        return torch.gather(hidden, 1, index)


def build() -> nn.Module:
    return QuestionPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    input_ids = torch.randint(4, 32, (3, 12), generator=generator)
    input_ids[0, [2, 5, 9]] = 3
    input_ids[1, [0]] = 3
    input_ids[2, [4, 6, 7, 11]] = 3
    return (input_ids,)


DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
