"""torchcrepe's weighted-argmax decoding: each frame's pitch is the average of the bins within a window
around its most likely bin. The window is made by masking everything else to ``-inf``, one frame at a
time, in two loops over the batch and the frames (``logits[batch, :start[batch, time], time] =
-float('inf')`` and the same above ``end``), then a softmax weights the bins' cents.

Reduced from torchcrepe 0.0.24 (the PyPI wheel, github.com/maxrmorrison/torchcrepe), torchcrepe/decode.py:
``weighted_argmax`` (lines 21-46), as zoo 62's ``torchcrepe_tiny_weighted_argmax`` runs it. Written here in
our own words: 24 bins instead of 360, the bins' cents a linear ramp, and the logits come from a 1x1
convolution of the input instead of the CREPE network.
"""

import torch
from torch import nn


def weighted_argmax(logits):
    bins = logits.argmax(dim=1)
    start = torch.max(torch.tensor(0, device=logits.device), bins - 4)
    end = torch.min(torch.tensor(logits.size(1), device=logits.device), bins + 5)
    for batch in range(logits.size(0)):
        for time in range(logits.size(2)):
            logits[batch, :start[batch, time], time] = -float('inf')
            logits[batch, end[batch, time]:, time] = -float('inf')
    cents = 20.0 * torch.arange(logits.size(1), dtype=logits.dtype, device=logits.device)[None, :, None]
    probabilities = torch.softmax(logits, dim=1)
    return bins, (probabilities * cents).sum(dim=1)


class Decoder(nn.Module):
    def __init__(self, bins: int = 24) -> None:
        super().__init__()
        self.logits = nn.Conv1d(2, bins, 1)

    def forward(self, features):
        return weighted_argmax(self.logits(features))


def build() -> nn.Module:
    return Decoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 9, generator=generator),)


DYNAMIC = {"features": {0: "batch", 2: "time"}}
CALL = "for batch in range(logits.size(0)):"
