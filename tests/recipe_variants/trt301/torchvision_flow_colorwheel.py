"""An optical-flow picture's colour-wheel position from the flow's direction: torchvision.

Reduced from torchvision 0.29.1 (the PyPI wheel), torchvision/utils.py,
``_normalized_flow_to_image`` (lines 640-670): the direction is
``torch.atan2(-flow[:, 1, :, :], -flow[:, 0, :, :]) / torch.pi`` (line 653), mapped onto the
colour wheel's 55 entries as ``fk = (a + 1) / 2 * (num_cols - 1)``, then split into the entry
below and the fraction. Written here in our own words up to that split (the colour lookup
writes through ``k1[k1 == num_cols] = 0``, TRT202's recipe, left out). Negating a zero flow
gives -0.0, so a still pixel reads ``atan2(-0., -0.) = -pi``: entry 0.
"""

import torch
from torch import nn


class FlowWheelIndex(nn.Module):
    def __init__(self, num_cols: int = 55) -> None:
        super().__init__()
        self.num_cols = num_cols

    def forward(self, normalized_flow):
        a = torch.atan2(-normalized_flow[:, 1, :, :], -normalized_flow[:, 0, :, :]) / torch.pi
        fk = (a + 1) / 2 * (self.num_cols - 1)
        k0 = torch.floor(fk)
        f = fk - k0
        return torch.stack((k0, f), dim=1)


def build() -> nn.Module:
    return FlowWheelIndex()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 3, 5, generator=generator),)


DYNAMIC = {"normalized_flow": {0: "batch", 2: "height", 3: "width"}}
