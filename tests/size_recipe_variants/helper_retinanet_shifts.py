"""NumPy on sizes in a helper that returns the array: RetinaNet's shifts, cast and converted by the caller.

Reduced from yhenon/pytorch-retinanet @ 0348a9d57b279e3b5b235461b472d37da5feec3d, retinanet/anchors.py:109-129
(``shift(shape, stride, anchors)``: ``(np.arange(0, shape[1]) + 0.5) * stride``, ``np.meshgrid``, ``np.vstack``
of ``.ravel()``, ``.transpose()``, returned) and :38-40 (``torch.from_numpy(....astype(np.float32))``),
written here in our own words without the anchor windows.
"""

import numpy as np
import torch
from torch import nn


def _shifts(h: int, w: int, stride: int):
    sx = (np.arange(0, w) + 0.5) * stride
    sy = (np.arange(0, h) + 0.5) * stride
    sx, sy = np.meshgrid(sx, sy)
    return np.vstack((sx.ravel(), sy.ravel(), sx.ravel(), sy.ravel())).transpose()


class Shifts(nn.Module):
    def forward(self, image):
        shifts = torch.from_numpy(_shifts(image.shape[2], image.shape[3], 8).astype(np.float32))
        return shifts + image.mean()


def build() -> nn.Module:
    return Shifts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 3, 5, generator=generator),)


DYNAMIC = {"image": {2: "h", 3: "w"}}
