"""kornia's linear illumination: a ramp from 0 to 1 down the rows or across the columns of the image.

Reduced from kornia/kornia (commit b4f5a78a13891c7ac4c1cd9695941380273e981d),
kornia/augmentation/random_generator/_2d/linear_illumination.py: ``LinearIlluminationGenerator.forward``
(lines 73-116) unpacks ``batch_size, channels, height, width = batch_shape`` and builds four ramps,
``torch.linspace(0, 1, height, device=_device, dtype=_dtype).view(1, 1, height, 1)`` and its reverse
``torch.linspace(1, 0, height, ...)``, and the same over ``width``, picks one per image by its direction,
and scales it by a gain and a sign. Kept: the four calls in their form, with the dtype held in a name
(``_dtype``), and the choice by direction. Reduced: the random gain, sign and direction are fixed
buffers (one direction per image of the batch of two: upper, lower), and the ramp is added to the image
(kornia's ``RandomLinearIllumination`` adds it and clamps). An image of one row gives ``height`` 1: torch's
ramp is ``[0]`` (``[1]`` reversed), the exported one is NaN. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


class LinearIllumination(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("gain", torch.tensor([0.3, 0.2]).view(2, 1, 1, 1))
        self.register_buffer("sign", torch.tensor([1.0, -1.0]).view(2, 1, 1, 1))
        self.register_buffer("directions", torch.tensor([1, 0], dtype=torch.int8).view(2, 1, 1, 1))

    def forward(self, x):
        batch_size, channels, height, width = x.shape
        _device, _dtype = self.gain.device, self.gain.dtype
        ramp_h = torch.linspace(0, 1, height, device=_device, dtype=_dtype).view(1, 1, height, 1)
        ramp_h_rev = torch.linspace(1, 0, height, device=_device, dtype=_dtype).view(1, 1, height, 1)
        ramp_w = torch.linspace(0, 1, width, device=_device, dtype=_dtype).view(1, 1, 1, width)
        ramp_w_rev = torch.linspace(1, 0, width, device=_device, dtype=_dtype).view(1, 1, 1, width)
        d = self.directions.to(torch.int64)
        ramp = (d == 0).to(_dtype) * ramp_h + (d == 1).to(_dtype) * ramp_h_rev \
            + (d == 2).to(_dtype) * ramp_w + (d == 3).to(_dtype) * ramp_w_rev
        gradient = self.sign * self.gain * ramp.expand(2, channels, height, width)
        return (x + gradient[:batch_size]).clamp(0, 1)


def build() -> nn.Module:
    return LinearIllumination().eval()


def inputs(generator):
    return (torch.rand(2, 3, 6, 5, generator=generator),)
