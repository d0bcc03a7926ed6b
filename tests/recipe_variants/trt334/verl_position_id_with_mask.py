"""verl's position ids from an attention mask: ``torch.clip(torch.cumsum(mask, dim=-1) - 1, min=0,
max=None)``, the mask given as the model's int64 input, so nothing in the code shows the cumsum is
of integers; a critic computes them for left- and right-padded rollouts before its value head.

Reduced from volcengine/verl, commit 011f972da0d98549bf551a0e471b40c22bc91c18,
verl/utils/model.py, ``compute_position_id_with_mask``. Written here in our own words, as the
forward of a small critic: token and position embeddings, a layer norm and a linear value per
token, masked.
"""

import torch
from torch import nn


def compute_position_id_with_mask(mask):
    return torch.clip(torch.cumsum(mask, dim=-1) - 1, min=0, max=None)


class Critic(nn.Module):
    def __init__(self, vocab: int = 40, hidden: int = 16, positions: int = 64) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(positions, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.value = nn.Linear(hidden, 1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        position_ids = compute_position_id_with_mask(attention_mask)
        hidden = self.norm(self.tokens(input_ids) + self.positions(position_ids))
        return self.value(hidden).squeeze(-1) * attention_mask


def build() -> nn.Module:
    return Critic()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(0, 40, (3, 10), generator=generator)
    mask = torch.ones(3, 10, dtype=torch.int64)
    mask[0, :3] = 0  # left padding
    mask[2, 7:] = 0  # right padding
    return ids, mask


DYNAMIC = {"input_ids": {0: "batch", 1: "length"}, "attention_mask": {0: "batch", 1: "length"}}
