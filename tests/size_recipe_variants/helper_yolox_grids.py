"""NumPy on sizes in a helper that returns the array: YOLOX's per-stride grids, made a tensor by the caller.

Reduced from Megvii-BaseDetection/YOLOX @ 6ddff4824372906469a7fae2dc3206c7aa4bbaee,
yolox/utils/demo_utils.py:139-154 (``img_size[0] // stride`` per stride, ``np.meshgrid(np.arange(wsize),
np.arange(hsize))`` in NumPy's "xy" order, ``np.stack((xv, yv), 2).reshape(1, -1, 2)`` appended to a list,
``np.concatenate(grids, 1)``), written here in our own words as a helper a torch decode converts.
"""

import numpy as np
import torch
from torch import nn

_STRIDES = (8, 16, 32)


def _grids(h: int, w: int):
    cells = []
    for stride in _STRIDES:
        rows, cols = h // stride, w // stride
        xv, yv = np.meshgrid(np.arange(cols), np.arange(rows))
        cells.append(np.stack((xv, yv), 2).reshape(1, -1, 2))
    return np.concatenate(cells, 1)


class Decode(nn.Module):
    def forward(self, x):
        grid = torch.from_numpy(_grids(x.shape[2], x.shape[3])).float()
        return grid * x.mean()


def build() -> nn.Module:
    return Decode()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 64, 96, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
