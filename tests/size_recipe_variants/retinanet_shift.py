"""NumPy on sizes: RetinaNet's anchor shifts, with a float offset on an integer range.

Reduced from yhenon/pytorch-retinanet @ 0348a9d57b279e3b5b235461b472d37da5feec3d,
retinanet/anchors.py:110-118 (``(np.arange(0, shape[1]) + 0.5) * stride``, ``np.meshgrid``,
``np.vstack`` of ``.ravel()``, ``.transpose()``) and :38-40 (``torch.from_numpy(
....astype(np.float32))``), written here in our own words in one method (the original shifts
in a helper, gathers the levels with ``np.append`` and converts in ``forward``).
"""

import numpy as np
import torch
from torch import nn


class Shifts(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stride = 8

    def forward(self, image):
        shape = image.shape[2:]
        shift_x = (np.arange(0, shape[1]) + 0.5) * self.stride
        shift_y = (np.arange(0, shape[0]) + 0.5) * self.stride
        shift_x, shift_y = np.meshgrid(shift_x, shift_y)
        shifts = np.vstack((shift_x.ravel(), shift_y.ravel(), shift_x.ravel(), shift_y.ravel())).transpose()
        return torch.from_numpy(shifts.astype(np.float32)) + image.mean()


def build() -> nn.Module:
    return Shifts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 3, 5, generator=generator),)


DYNAMIC = {"image": {2: "h", 3: "w"}}
