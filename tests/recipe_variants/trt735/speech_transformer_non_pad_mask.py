"""Speech-Transformer's encoder keeps padded frames at zero with a mask built from the utterances' lengths,
one row at a time: ``for i in range(N): non_pad_mask[i, input_lengths[i]:] = 0``, after filling a tensor of
ones shaped like the input's first two axes (``padded_input.new_ones(padded_input.size()[:-1])``).

Reduced from kaituoxu/Speech-Transformer @ 43d83eab2e4e25a4250ddff702aa0a2d4dffe4e6, src/utils/utils.py,
``get_non_pad_mask`` (lines 100-115; the loop at 106-109), as src/transformer/encoder.py's ``Encoder.forward``
uses it to multiply each layer's output. Written here in our own words: the ``pad_idx`` path is dropped, and
the encoder is one linear projection whose output the mask zeroes past each length.

Why it matters for export: a trace unrolls the loop over the example's batch and reads every length into a
Python int, so the exported graph zeroes the example's padding whatever lengths (and batch) it is given.
"""

import torch
from torch import nn


def get_non_pad_mask(padded_input, input_lengths):
    N = padded_input.size(0)
    non_pad_mask = padded_input.new_ones(padded_input.size()[:-1])  # N x T
    for i in range(N):
        non_pad_mask[i, input_lengths[i]:] = 0
    return non_pad_mask.unsqueeze(-1)


class Encoder(nn.Module):
    def __init__(self, features: int = 5, model: int = 6) -> None:
        super().__init__()
        self.project = nn.Linear(features, model)

    def forward(self, padded_input, input_lengths):
        return self.project(padded_input) * get_non_pad_mask(padded_input, input_lengths)


def build() -> nn.Module:
    return Encoder()


def inputs(generator: torch.Generator, batch: int = 3, time: int = 8) -> tuple[torch.Tensor, ...]:
    lengths = torch.randint(0, time + 1, (batch,), generator=generator)
    return torch.randn(batch, time, 5, generator=generator), lengths


DYNAMIC = {"padded_input": {0: "batch", 1: "time"}, "input_lengths": {0: "batch"}}
CALL = "for i in range(N):"
