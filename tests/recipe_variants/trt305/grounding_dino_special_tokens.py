"""The delimiter tokens of a Grounding DINO prompt found with ``torch.isin``: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/grounding_dino/
modeling_grounding_dino.py, ``generate_masks_with_special_tokens_and_transfer_map`` (lines
1809-1859, called from ``GroundingDinoModel.forward``, line 2069: ``special_mask =
torch.isin(input_ids, special_tokens)`` at line 1827, the special tokens a buffer of the model,
line 1938; the same in mm_grounding_dino). Written here in our own words: the mask and the
positions of the delimiters only, without the cumulative max/min that build the block mask.
"""

import torch
from torch import nn


class SpecialTokenPositions(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.special_tokens = nn.Buffer(torch.tensor([101, 102, 1012, 1029]))

    def forward(self, input_ids):
        batch_size, seq_len = input_ids.shape
        special_mask = torch.isin(input_ids, self.special_tokens)
        indices = torch.arange(seq_len).unsqueeze(0).expand(batch_size, -1)
        return torch.where(special_mask, indices, torch.full((), -1))


def build() -> nn.Module:
    return SpecialTokenPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(1000, 1040, (2, 7), generator=generator)
    ids[:, 0], ids[:, -1] = 101, 102
    return (ids,)


DYNAMIC = {"input_ids": {0: "batch", 1: "tokens"}}
