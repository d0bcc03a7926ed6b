"""An intensity scaling by percentiles taken separately for each channel of the image.

Reduced from Project-MONAI/MONAI @ d388d1c6fec8cb3a0eebee5b5a0b9776ca59ca83,
monai/transforms/intensity/array.py:1414 (``ScaleIntensityRangePercentiles`` with ``channel_wise=True``:
``torch.stack([self._normalize(img=d) for d in img_t])``, each channel scaled from its lower and upper
percentile to ``[b_min, b_max]`` and clipped), in our own words: the percentiles by ``torch.quantile``,
the batch of images as the channels' axis (a dynamic first axis).
"""

import torch
from torch import nn

DYNAMIC = {"img": {0: "channels"}}


class ChannelPercentileScale(nn.Module):
    def __init__(self, lower: float = 5.0, upper: float = 95.0, b_min: float = 0.0, b_max: float = 1.0) -> None:
        super().__init__()
        self.lower, self.upper, self.b_min, self.b_max = lower, upper, b_min, b_max

    def _normalize(self, img):
        a_min = torch.quantile(img.flatten(), self.lower / 100.0)
        a_max = torch.quantile(img.flatten(), self.upper / 100.0)
        scaled = (img - a_min) / (a_max - a_min) * (self.b_max - self.b_min) + self.b_min
        return torch.clamp(scaled, self.b_min, self.b_max)

    def forward(self, img):
        return torch.stack([self._normalize(img=d) for d in img])


def build() -> nn.Module:
    return ChannelPercentileScale()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 8, generator=generator) * 50,)
