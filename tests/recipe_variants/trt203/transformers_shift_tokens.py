"""Hugging Face's ``shift_tokens_right`` for encoder-decoder models: the decoder's input ids are
the labels moved one step right, built in a zero tensor by two partial writes (``[:, 1:] =
ids[:, :-1].clone()`` and the start token into column 0), then the ignore index -100 replaced by
the pad id with ``masked_fill_``.

Reduced from huggingface/transformers at v5.24.0 (the PyPI release the second zoo unpacks),
src/transformers/models/led/modeling_led.py:39-51 (``shift_tokens_right``; the same function is
copied into Pegasus, mBART, Marian, Speech-Encoder-Decoder and others), written here in our own
words; the pad and start ids are the module's attributes and the ``None`` check is left out.
"""

import torch
from torch import nn


class ShiftRight(nn.Module):
    def __init__(self, pad_token_id: int = 1, decoder_start_token_id: int = 2) -> None:
        super().__init__()
        self.pad_token_id = pad_token_id
        self.decoder_start_token_id = decoder_start_token_id

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        shifted_input_ids = input_ids.new_zeros(input_ids.shape)
        shifted_input_ids[:, 1:] = input_ids[:, :-1].clone()
        shifted_input_ids[:, 0] = self.decoder_start_token_id
        shifted_input_ids.masked_fill_(shifted_input_ids == -100, self.pad_token_id)
        return shifted_input_ids


def build() -> nn.Module:
    return ShiftRight()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(3, 50, (2, 4), generator=generator)
    return (torch.cat([ids, torch.full((2, 2), -100)], dim=1),)  # padded labels


DYNAMIC = {"input_ids": {0: "batch", 1: "tokens"}}
