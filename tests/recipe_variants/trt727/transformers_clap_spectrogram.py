"""CLAP's audio encoder in transformers: a spectrogram shorter than the Swin input is stretched
along time with a bicubic resize whose size is passed positionally, ``(spec_width,
freq_length)``, with ``align_corners=True``.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
src/transformers/models/clap/modeling_clap.py, ``ClapAudioEncoder.reshape_mel2img`` lines 765-790
(the size check, ``nn.functional.interpolate(normalized_input_features, (spec_width,
freq_length), mode="bicubic", align_corners=True)`` when ``time_length < spec_width``, the same
along frequency, then the reshape into the Swin image). Written here in our own words: the
spectrogram's frequency axis is the model's input size, only the time axis is stretched (the
``time_length < spec_width`` guard, the frequency branch and the reshape are left out: the example
and every size checked are shorter than ``spec_width``, the branch CLAP takes for short clips),
and a 1x1 convolution follows.
"""

import torch
from torch import nn


class ClapMelToImage(nn.Module):
    def __init__(self, spec_size: int = 16, freq_ratio: int = 2) -> None:
        super().__init__()
        self.spec_size = spec_size
        self.freq_ratio = freq_ratio
        self.proj = nn.Conv2d(1, 2, kernel_size=1)

    def forward(self, normalized_input_features: torch.Tensor) -> torch.Tensor:
        _, _, time_length, freq_length = normalized_input_features.shape
        spec_width = int(self.spec_size * self.freq_ratio)
        normalized_input_features = nn.functional.interpolate(
            normalized_input_features, (spec_width, freq_length), mode="bicubic", align_corners=True
        )
        return self.proj(normalized_input_features)


def build() -> nn.Module:
    return ClapMelToImage()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 20, 8, generator=generator),)


DYNAMIC = {"normalized_input_features": {0: "batch", 2: "time", 3: "freq"}}
