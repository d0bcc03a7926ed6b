"""kornia's ``sharpness``: the image is smoothed with a 3x3 depthwise kernel without padding,
then the border the convolution lost is filled back from the original image. The smoothed map
and a map of ones are padded back to the image's size with a one-pixel zero border written as
a list, ``F.pad(mask, [1, 1, 1, 1])``, and the zero border of the padded ones selects the
original pixels.

Reduced from kornia at tag v0.9.0 (the PyPI release the zoo unpacks),
kornia/enhance/adjust.py:1128-1150 (``sharpness``: the kernel ``[[1, 1, 1], [1, 5, 1],
[1, 1, 1]] / 13`` repeated per channel, ``conv2d(..., groups=C)``, ``clamp(0, 1)``,
``mask = ones_like(degenerate)``, the two literal pads at :1142-1143,
``torch.where(padded_mask == 1, padded_degenerate, input)`` and the blend with ``factor``),
written here in our own words with one factor for the batch.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class Sharpness(nn.Module):
    def __init__(self, channels: int = 3, factor: float = 0.7) -> None:
        super().__init__()
        kernel = torch.tensor([[1.0, 1.0, 1.0], [1.0, 5.0, 1.0], [1.0, 1.0, 1.0]]) / 13
        self.register_buffer("kernel", kernel.view(1, 1, 3, 3).repeat(channels, 1, 1, 1))
        self.factor = factor

    def forward(self, image: Tensor) -> Tensor:
        degenerate = F.conv2d(image, self.kernel, bias=None, stride=1, groups=image.size(1))
        degenerate = torch.clamp(degenerate, 0.0, 1.0)
        mask = torch.ones_like(degenerate)
        padded_mask = F.pad(mask, [1, 1, 1, 1])
        padded_degenerate = F.pad(degenerate, [1, 1, 1, 1])
        result = torch.where(padded_mask == 1, padded_degenerate, image)
        return torch.clamp(image + (result - image) * self.factor, 0.0, 1.0)


def build() -> nn.Module:
    return Sharpness()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 6, 5, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
