"""NAF's nearest-exact feature upsampler: low-resolution backbone features resized to the image's size.

Reduced from valeoai/NAF at commit f63aadffba49c7131fb2b421e165b3e9acd5b52a, src/model/nearest.py
(lines 1-12): the ``Nearest`` upsampler's forward takes the image, the backbone's features and the
output size, and returns ``F.interpolate(features, size=output_size, mode="nearest-exact")``. Here a
small strided convolution stands in for the frozen backbone (NAF upsamples DINO-style features), and
the output size is the image's own (``image.shape[-2:]``, as NAF's evaluation passes it). Written here
in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Nearest(nn.Module):
    def forward(self, image, features, output_size):
        features = F.interpolate(features, size=output_size, mode="nearest-exact")
        return features


class BackboneWithUpsampler(nn.Module):
    def __init__(self, channels: int = 6) -> None:
        super().__init__()
        self.backbone = nn.Conv2d(3, channels, 4, stride=4)
        self.upsampler = Nearest()

    def forward(self, image):
        features = self.backbone(image)
        return self.upsampler(image, features, image.shape[-2:])


def build() -> nn.Module:
    torch.manual_seed(0)
    return BackboneWithUpsampler().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # 18x22 pixels: 4x5 feature cells, resized back by the non-integer factors 4.5 and 4.4.
    return (torch.randn(1, 3, 18, 22, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
