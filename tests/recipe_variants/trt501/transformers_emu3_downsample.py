"""Emu3's VQ-VAE encoder downsamples with a stride-2 3x3 convolution without padding after an
asymmetric zero pad of one column on the right and one row at the bottom, written with every
keyword: ``F.pad(hidden_states, pad=(0, 1, 0, 1), mode="constant", value=0)``.

Reduced from huggingface/transformers at tag v5.24.0 (the PyPI release the zoo unpacks),
src/transformers/models/emu3/modeling_emu3.py:314-323 (``Emu3VQVAEEncoderConvDownsample``:
``nn.Conv2d(c, c, kernel_size=3, stride=2, padding=0)`` and the pad before it), written here in
our own words.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ConvDownsample(nn.Module):
    def __init__(self, in_channels: int = 3) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=2, padding=0)

    def forward(self, hidden_states: Tensor) -> Tensor:
        hidden_states = F.pad(hidden_states, pad=(0, 1, 0, 1), mode="constant", value=0)
        return self.conv(hidden_states)


def build() -> nn.Module:
    return ConvDownsample()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 7, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 2: "height", 3: "width"}}
