"""PyTorch-GAN's ESRGAN: the generator's output, normalised like the ImageNet inputs, brought back to pixel values.

Reduced from eriklindernoren/PyTorch-GAN @ d01fa6bc83da08db4d72eba1e3c9b4d23321aec3,
implementations/esrgan/datasets.py: ``denormalize(tensors)`` undoes the ImageNet normalisation channel by channel with
``tensors[:, c].mul_(std[c]).add_(mean[c])`` (line 19; ``mean`` and ``std`` NumPy arrays of the module) and clamps;
``test_on_image.py`` calls it on the generator's super-resolved image. Kept: the arrays, the function and its call on
a generator's output. Reduced: the generator is one convolution and a pixel shuffle. Written here in our own words.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
#: The line of the chained in-place calls (the rule's finding).
CALL = "tensors[:, c].mul_(std[c]).add_(mean[c])"

# Normalisation of the pretrained models' inputs
mean = np.array([0.485, 0.456, 0.406])
std = np.array([0.229, 0.224, 0.225])


def denormalize(tensors):
    """Undo the normalisation of a batch of images."""
    for c in range(3):
        tensors[:, c].mul_(std[c]).add_(mean[c])
    return torch.clamp(tensors, 0, 255)


class SuperResolution(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.generator = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.PixelShuffle(2))

    def forward(self, image):
        return denormalize(self.generator(image))


def build() -> nn.Module:
    return SuperResolution().eval()


def inputs(generator: torch.Generator, batch: int = 1, side: int = 6) -> tuple[torch.Tensor, ...]:
    """``batch`` normalised low-resolution images, ``side`` pixels square."""
    return (torch.randn(batch, 3, side, side, generator=generator),)
