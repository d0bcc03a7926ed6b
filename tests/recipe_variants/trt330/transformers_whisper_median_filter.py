"""Whisper's median filter of cross-attention weights: reflection padding, windows positionally at -1, sorted.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/whisper/generation_whisper.py:
``_median_filter`` (lines 44-62). An odd filter width is checked, inputs no longer than half the
width are returned as they are, the last axis is padded by reflection on both sides (a four-entry
pad tuple that leaves the next axis alone), and the median is taken as
``inputs.unfold(-1, filter_width, 1).sort()[0][..., pad_width]``, the middle of each sorted window.
Written here in our own words; Whisper applies it to the alignment heads' attention weights when
it computes word timestamps, a module here holds the width.
"""

import torch
from torch import nn


def median_filter(inputs, filter_width):
    if filter_width <= 0 or filter_width % 2 != 1:
        raise ValueError("the filter width must be an odd positive number")
    pad_width = filter_width // 2
    if inputs.shape[-1] <= pad_width:
        return inputs
    inputs = nn.functional.pad(inputs, (pad_width, pad_width, 0, 0), mode="reflect")
    return inputs.unfold(-1, filter_width, 1).sort()[0][..., pad_width]


class AlignmentSmoothing(nn.Module):
    def __init__(self, filter_width: int = 7) -> None:
        super().__init__()
        self.filter_width = filter_width

    def forward(self, weights):
        return median_filter(weights, self.filter_width)


def build() -> nn.Module:
    return AlignmentSmoothing().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 12, generator=generator),)


DYNAMIC = {}
