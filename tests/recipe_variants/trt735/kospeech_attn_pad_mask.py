"""KoSpeech's Speech-Transformer builds the attention's padding mask through a helper nested in another: the
inner ``get_transformer_non_pad_mask`` picks ones of the input's first two axes by the input's rank, zeroes
each row past its length in a loop (``for i in range(batch_size): non_pad_mask[i, input_lengths[i]:] = 0``),
and the outer one turns it into a boolean "masked" tensor (``.lt(1)``) expanded over the queries.

Reduced from sooftware/kospeech @ 984b5890dd53379486b2abc0165c3396eb52ad37, kospeech/models/transformer/mask.py,
``get_attn_pad_mask`` (lines 20-42), as the encoder's self-attention applies it. Written here in our own words:
one attention head whose scores are filled with a large negative number where the mask is set, the queries,
keys and values one linear projection each.

Why it matters for export: a trace unrolls the loop over the example's batch and reads every length as a
constant, so the exported attention ignores the lengths (and batch) it is given and masks the example's.
"""

import torch
from torch import Tensor, nn


def get_attn_pad_mask(inputs, input_lengths, expand_length):
    def get_transformer_non_pad_mask(inputs: Tensor, input_lengths: Tensor) -> Tensor:
        batch_size = inputs.size(0)

        if len(inputs.size()) == 2:
            non_pad_mask = inputs.new_ones(inputs.size())  # B x T
        elif len(inputs.size()) == 3:
            non_pad_mask = inputs.new_ones(inputs.size()[:-1])  # B x T
        else:
            raise ValueError(f"Unsupported input shape {inputs.size()}")

        for i in range(batch_size):
            non_pad_mask[i, input_lengths[i]:] = 0

        return non_pad_mask

    pad_mask = get_transformer_non_pad_mask(inputs, input_lengths).lt(1)
    return pad_mask.unsqueeze(1).expand(-1, expand_length, -1)


class SelfAttention(nn.Module):
    def __init__(self, features: int = 6) -> None:
        super().__init__()
        self.query = nn.Linear(features, features)
        self.key = nn.Linear(features, features)
        self.value = nn.Linear(features, features)

    def forward(self, inputs, input_lengths):
        mask = get_attn_pad_mask(inputs, input_lengths, inputs.size(1))
        scores = self.query(inputs) @ self.key(inputs).transpose(1, 2) / inputs.size(-1) ** 0.5
        weights = torch.softmax(scores.masked_fill(mask, -1e4), dim=-1)
        return weights @ self.value(inputs)


def build() -> nn.Module:
    return SelfAttention()


def inputs(generator: torch.Generator, batch: int = 3, time: int = 7) -> tuple[torch.Tensor, ...]:
    lengths = torch.randint(1, time + 1, (batch,), generator=generator)
    return torch.randn(batch, time, 6, generator=generator), lengths


DYNAMIC = {"inputs": {0: "batch", 1: "time"}, "input_lengths": {0: "batch"}}
CALL = "for i in range(batch_size):"
