"""An image turned channels-last by a lambda, the operand in a list: google/unrestricted-adversarial-examples.

Reduced from google/unrestricted-adversarial-examples at 7285875bfec2639be8e9867ea746407e061c653b,
bird-or-bicycle/bird_or_bicycle/iterator.py, ``get_iterator`` (lines 35-39: the preprocessing
``Compose`` whose last step is ``lambda x: torch.einsum('chw->hwc', [x])``, line 38; the older
form of einsum, its operands in one list). Written here in our own words as a module: the
resize is left out; the image is scaled to [0, 1] (as ``ToTensor`` does), then made channels-last
by the same lambda, then normalised per channel on the last axis.
"""

import torch
from torch import nn


class ChannelsLast(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.steps = (lambda x: x / 255.0, lambda x: torch.einsum('chw->hwc', [x]))
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]))

    def forward(self, image):
        for step in self.steps:
            image = step(image)
        return (image - self.mean) / self.std


def build() -> nn.Module:
    return ChannelsLast()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 256, (3, 4, 5), generator=generator).float(),)


DYNAMIC = {"image": {1: "height", 2: "width"}}
