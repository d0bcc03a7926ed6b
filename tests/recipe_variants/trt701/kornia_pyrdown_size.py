"""kornia's ``pyrdown``: a blur, then a resize to the floor of each side over the factor, computed
while tracing from the traced sizes in float64 ("avoids rounding a fractional quotient before
truncating it").

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/geometry/transform/pyramid.py:405-459 (``pyrdown``): ``filter2d`` with the 5x5 pyramid
kernel, then, when ``height`` is a tensor (the TorchScript tracer's sizes),
``divisor = torch.tensor([factor], dtype=torch.float64)`` and ``torch.floor(side.reshape(1).double()
/ divisor).long()[0]`` per side; in eager mode ``int(float(height) / factor)``; then
``F.interpolate(..., mode="bilinear")``. Written here in our own words; the blur is a fixed 3x3
depthwise kernel with zero padding, the factor 2, and the dynamo branch is left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PyrDown(nn.Module):
    def __init__(self, channels: int = 3, factor: float = 2.0) -> None:
        super().__init__()
        self.factor = factor
        kernel = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0
        self.register_buffer("kernel", kernel.expand(channels, 1, 3, 3).clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        blurred = F.conv2d(x, self.kernel, padding=1, groups=x.shape[1])
        _, _, height, width = x.shape
        if isinstance(height, torch.Tensor):
            divisor = torch.tensor([self.factor], dtype=torch.float64)
            size = [torch.floor(side.reshape(1).double() / divisor).long()[0] for side in (height, width)]
        else:
            size = [int(float(height) / self.factor), int(float(width) / self.factor)]
        return F.interpolate(blurred, size=size, mode="bilinear", align_corners=False)


def build() -> nn.Module:
    return PyrDown()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
