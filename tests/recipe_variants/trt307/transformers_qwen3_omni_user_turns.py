"""The tokens of a user's turns in a Qwen3-Omni chat, from the last ``<|im_start|>`` before each.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/qwen3_omni_moe/
modeling_qwen3_omni_moe.py, ``Qwen3OmniMoeForConditionalGeneration.generate`` (lines 4185-4193;
the modular file, line 2612): positions of the ``<|im_start|>`` tokens and -1 elsewhere, their
running maximum along the sequence ``torch.cummax(..., dim=-1).values.clamp_min(0)``, the token
after it (the turn's role) gathered for every position, and the user's tokens where that role is
``user`` and the attention mask is set. Written here in our own words as a module over ids and a
mask, returning that mask of user tokens; the sort that packs them for the talker is left out.
"""

import torch
from torch import nn


class UserTurns(nn.Module):
    def __init__(self, im_start_token_id: int = 7, user_token_id: int = 3) -> None:
        super().__init__()
        self.im_start_token_id = im_start_token_id
        self.user_token_id = user_token_id

    def forward(self, input_ids, attention_mask):
        sequence_length = input_ids.shape[1]
        token_positions = torch.arange(sequence_length).unsqueeze(0).expand_as(input_ids)
        im_start_positions = torch.where(input_ids == self.im_start_token_id, token_positions,
                                         token_positions.new_full((), -1))
        previous_im_start = torch.cummax(im_start_positions, dim=-1).values.clamp_min(0)
        role_token_ids = input_ids.gather(1, (previous_im_start + 1).clamp_max(sequence_length - 1))
        return (role_token_ids == self.user_token_id) & attention_mask.bool()


def build() -> nn.Module:
    return UserTurns()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(0, 10, (2, 12), generator=generator)
    ids[:, 0], ids[:, 1], ids[:, 6], ids[:, 7] = 7, 3, 7, 5
    return ids, torch.ones(2, 12, dtype=torch.long)


DYNAMIC = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}}
