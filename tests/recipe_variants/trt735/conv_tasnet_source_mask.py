"""Conv-TasNet's SI-SNR objective masks every separated source past the utterance's length before taking
zero-mean signals: ``B, _, T = source.size(); mask = source.new_ones((B, 1, T)); for i in range(B):
mask[i, :, source_lengths[i]:] = 0`` (the sliced axis is the last, after a whole one).

Reduced from kaituoxu/Conv-TasNet @ 0d9d9dcd8037b396fd029000af58cda6b7663b11, src/pit_criterion.py,
``get_mask`` (lines 101-113), as ``cal_si_snr_with_pit`` (lines 29-40) applies it. Written here in our own
words: the model returns the masked zero-mean targets and estimates the SI-SNR is then computed from (no
permutation search, no ratio), and the estimates come from a 1x1 convolution of the mixture instead of the
separation network.

Why it matters for export: a trace unrolls the loop over the example's batch with each length a constant, so
the exported objective masks the example's lengths at every batch and length.
"""

import torch
from torch import nn


def get_mask(source, source_lengths):
    B, _, T = source.size()
    mask = source.new_ones((B, 1, T))
    for i in range(B):
        mask[i, :, source_lengths[i]:] = 0
    return mask


def zero_mean_pair(source, estimate, source_lengths):
    mask = get_mask(source, source_lengths)
    estimate = estimate * mask
    count = source_lengths.view(-1, 1, 1).float().clamp(min=1)
    target = (source - source.sum(2, keepdim=True) / count) * mask
    guess = (estimate - estimate.sum(2, keepdim=True) / count) * mask
    return torch.cat([target, guess], 1)


class Objective(nn.Module):
    def __init__(self, sources: int = 2) -> None:
        super().__init__()
        self.separate = nn.Conv1d(1, sources, 1)

    def forward(self, mixture, source, source_lengths):
        return zero_mean_pair(source, self.separate(mixture), source_lengths)


def build() -> nn.Module:
    return Objective()


def inputs(generator: torch.Generator, batch: int = 3, time: int = 10) -> tuple[torch.Tensor, ...]:
    lengths = torch.randint(1, time + 1, (batch,), generator=generator)
    return (torch.randn(batch, 1, time, generator=generator), torch.randn(batch, 2, time, generator=generator),
            lengths)


DYNAMIC = {"mixture": {0: "batch", 2: "time"}, "source": {0: "batch", 2: "time"}, "source_lengths": {0: "batch"}}
CALL = "for i in range(B):"
