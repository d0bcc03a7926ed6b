"""kornia's linear illumination ramps, each viewed as a column or a row of a 4-D map.

Reduced from kornia/kornia (commit b4f5a78a13891c7ac4c1cd9695941380273e981d),
kornia/augmentation/random_generator/_2d/linear_illumination.py: ``LinearIlluminationGenerator.forward``
(lines 73-116) unpacks ``batch_size, channels, height, width = batch_shape``, views
``torch.linspace(0, 1, height, ...)`` as ``.view(1, 1, height, 1)`` and the ramp over ``width`` as
``.view(1, 1, 1, width)`` (lines 95-98), mixes them by direction and expands the result to ``(batch_size,
channels, height, width)``. Kept: the four views in their form, the mixing and the expansion. Reduced: the
random gain, sign and directions are fixed buffers (a batch of two), the ramp is added to the image and
clamped (kornia's ``RandomLinearIllumination`` applies it so). A ramp of one row is TRT368's
(``tests/recipe_variants/trt368/kornia_linear_illumination_ramps.py``). An image of no rows (an empty
crop) makes ``height`` 0: the ramp is empty, and ``.view(1, 1, height, 1)`` exports as a ``Reshape``
whose 0, past the ramp's one axis, ONNX Runtime refuses. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


class RampIllumination(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("gain", torch.tensor([0.25, 0.4]).view(2, 1, 1, 1))
        self.register_buffer("sign", torch.tensor([-1.0, 1.0]).view(2, 1, 1, 1))
        self.register_buffer("directions", torch.tensor([3, 0]).view(2, 1, 1, 1))

    def forward(self, x):
        batch_size, channels, height, width = x.shape
        dev, dt = x.device, x.dtype
        ramp_h = torch.linspace(0, 1, height, device=dev, dtype=dt).view(1, 1, height, 1)
        ramp_h_rev = torch.linspace(1, 0, height, device=dev, dtype=dt).view(1, 1, height, 1)
        ramp_w = torch.linspace(0, 1, width, device=dev, dtype=dt).view(1, 1, 1, width)
        ramp_w_rev = torch.linspace(1, 0, width, device=dev, dtype=dt).view(1, 1, 1, width)
        d = self.directions
        mixed = (d == 0).to(dt) * ramp_h + (d == 1).to(dt) * ramp_h_rev + (d == 2).to(dt) * ramp_w \
            + (d == 3).to(dt) * ramp_w_rev
        gradient = self.sign * self.gain * mixed.expand(2, channels, height, width)
        return (x + gradient[:batch_size]).clamp(0, 1)


def build() -> nn.Module:
    return RampIllumination().eval()


def inputs(generator):
    return (torch.rand(2, 3, 5, 6, generator=generator),)
