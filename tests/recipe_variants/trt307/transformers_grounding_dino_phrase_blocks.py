"""The phrase blocks of a Grounding DINO prompt, from the delimiters before and after each token.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/grounding_dino/
modeling_grounding_dino.py, ``generate_masks_with_special_tokens_and_transfer_map`` (lines
1809-1859, called from ``GroundingDinoModel.forward``): the position of the last delimiter at or
before each token is ``torch.cummax(..., dim=1)[0]`` of the positions where delimiters are and -1
elsewhere (line 1834), the next delimiter a ``torch.cummin(..., dim=1)[0]`` of the flipped
positions, flipped back (line 1839); mm_grounding_dino repeats them (lines 1752, 1757). Written
here in our own words: the delimiters found with a broadcast ``==`` rather than ``torch.isin``
(TRT305's), and the model returns the two running positions and the position ids, without the
block attention mask.
"""

import torch
from torch import nn


class PhraseBlocks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.special_tokens = nn.Buffer(torch.tensor([101, 102, 1012, 1029]))

    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        special_mask = (input_ids.unsqueeze(-1) == self.special_tokens).any(-1)
        indices = torch.arange(seq_len).unsqueeze(0).expand(batch_size, -1)
        prev_special = torch.where(special_mask, indices, torch.full((), -1))
        prev_special = torch.cummax(prev_special, dim=1)[0]
        prev_special = torch.cat([prev_special.new_full((batch_size, 1), -1), prev_special[:, :-1]], dim=1)
        next_special = torch.where(special_mask, indices, torch.tensor(seq_len))
        next_special = torch.flip(torch.cummin(torch.flip(next_special, dims=[1]), dim=1)[0], dims=[1])
        valid_block = (next_special != 0) & (next_special != seq_len - 1) & (next_special != seq_len)
        position_ids = torch.where(valid_block, indices - prev_special - 1, torch.zeros_like(indices)).clamp(min=0)
        return torch.stack([prev_special, next_special, position_ids])


def build() -> nn.Module:
    return PhraseBlocks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(1000, 1040, (2, 9), generator=generator)
    ids[:, 0], ids[:, -1] = 101, 102
    return (ids,)


DYNAMIC = {"input_ids": {0: "batch", 1: "tokens"}}
