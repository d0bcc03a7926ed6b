"""jitfields' resize by a factor: the output shape is the ceiling of each spatial size times its factor.

Reduced from balbasty/jitfields at 1d201a8e20d29cd5a664412b389c8abc56b796ae, jitfields/resize.py:69-77
(``resize(x, factor=...)``: ``shape = [pymath.ceil(s*f) for s, f in zip(x.shape[-ndim:], factor)]`` with
``import math as pymath``, then ``fullshape = list(x.shape[:-ndim]) + list(shape)`` and ``x.new_empty(fullshape)``
filled by the spline kernel). Written here in our own words, with PyTorch's trilinear interpolation in
place of the compiled spline kernel. Form kept: the new size pairs each size of the input's spatial shape
with its factor through ``zip`` and rounds it up with ``math.ceil`` under another name: the TorchScript
export keeps the example's output size, so at another input size the output has the example's shape.
"""

import math as pymath

import torch
import torch.nn.functional as F
from torch import nn


class ResizeByFactor(nn.Module):
    def __init__(self, factor=(0.6, 1.5, 0.75)) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x):
        ndim = len(self.factor)
        shape = [pymath.ceil(s * f) for s, f in zip(x.shape[-ndim:], self.factor)]
        return F.interpolate(x, size=shape, mode="trilinear", align_corners=True)


def build() -> nn.Module:
    return ResizeByFactor().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 10, 8, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
