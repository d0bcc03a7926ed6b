"""A network's input resized to fit inside a bound, each side a multiple of 32, computed in NumPy from the sizes.

Reduced from isl-org/MiDaS @ 454597711a62eabcbf7d1e89f3fb9f569051ac9b, midas/transforms.py:94-150
(``Resize.constrain_to_multiple_of``: ``y = (np.round(x / self.__multiple_of) * self.__multiple_of).astype(int)``,
then ``np.floor`` where the rounding passed ``max_val``; ``get_size`` with ``resize_method="upper_bound"`` keeps the
aspect and fits the image inside the bound), in our own words: the resize done in the model on a batch (as a
deploying service does) with the sizes the class computes, a convolution on the resized batch and the map resized
back to the input's size. Depth Anything V1 and V2 copy the same class (zoo 82: its lower-bound form).
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


class FitInside:
    def __init__(self, bound: int, multiple: int) -> None:
        self.bound, self.multiple = bound, multiple

    def constrained(self, x, max_val=None):
        y = (np.round(x / self.multiple) * self.multiple).astype(int)
        if max_val is not None and y > max_val:
            y = (np.floor(x / self.multiple) * self.multiple).astype(int)
        return y

    def size(self, height, width):
        scale_h, scale_w = self.bound / height, self.bound / width
        scale = scale_w if scale_w < scale_h else scale_h
        return self.constrained(scale * height, self.bound), self.constrained(scale * width, self.bound)


class Relative(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fit = FitInside(96, 32)
        self.conv = nn.Conv2d(3, 1, 3, padding=1)

    def forward(self, x):
        h, w = x.shape[2:]
        height, width = self.fit.size(h, w)
        y = F.interpolate(x, size=(int(height), int(width)), mode="bilinear", align_corners=False)
        return F.interpolate(self.conv(y), (h, w), mode="bilinear", align_corners=True)


def build() -> nn.Module:
    return Relative()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 60, 80, generator=generator),)
