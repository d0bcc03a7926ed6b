"""Cosmos3's conditioning image: an `elif` chain on tensor values inside an `if` on configuration.

Reduced from huggingface/diffusers at commit 58eb52c0803ea9af3abec60841c2a093bdf1f951,
src/diffusers/pipelines/cosmos/pipeline_cosmos3_omni.py:55-94 (``_preprocess_conditioning_image``; the
modular pipeline's src/diffusers/modular_pipelines/cosmos/encoders.py:26-65 is a copy): a float image is
brought to [0, 255] by its range (``if not is_integer_input:`` on the dtype, then ``if image.min() < 0:``
scale [-1, 1] up, ``elif image.max() <= 1.0:`` scale [0, 1] up, else keep it), then resized, rounded,
clamped and brought to [-1, 1]. The nesting is the other way round from UniMatch's: configuration outer,
the tensor tests inner. Kept: the dtype test, the two-test chain and what follows it. Left out: the
PIL/NumPy conversions, the shape check and the resize-then-crop (a plain resize to the requested
size here). Written in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def preprocess_conditioning_image(image: torch.Tensor, height: int, width: int) -> torch.Tensor:
    is_integer_input = not image.is_floating_point()
    image = image.to(dtype=torch.float32)
    if not is_integer_input:
        if image.min() < 0:
            image = (image + 1.0) * 127.5
        elif image.max() <= 1.0:
            image = image * 255.0

    image = F.interpolate(image, size=(height, width), mode="bilinear", align_corners=False)
    image = image.round().clamp(0, 255) / 127.5 - 1.0
    return image


class ConditioningImage(nn.Module):
    """The preprocessing at a fixed working size, followed by a small projection."""

    def __init__(self, height=8, width=8):
        super().__init__()
        self.height, self.width = height, width
        self.proj = nn.Conv2d(3, 4, 1)

    def forward(self, image):
        return self.proj(preprocess_conditioning_image(image, self.height, self.width))


def build() -> nn.Module:
    return ConditioningImage()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # an image in [-1, 1] (the first test holds)
    return (torch.rand(1, 3, 6, 10, generator=generator) * 2 - 1,)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
