"""FaceBoxes' priors: anchors densified by their size (``if min_size == 32``: four by four centres per
cell, ``elif == 64``: two by two, else one), each branch its own comprehensions and ``product``.

Reduced from zisianw/FaceBoxes.PyTorch @ 22efc6a35ce21b53b66ffc8c7a01c293e503df7a,
layers/functions/prior_box.py:17-43 (``PriorBox.forward``), written here in our own words; the feature
maps come from the input's size with integer arithmetic instead of ``ceil`` in ``__init__``.
"""

from itertools import product

import torch
from torch import nn


class Boxes(object):
    def __init__(self, size, grids):
        self.levels = [[32, 64, 128], [256]]
        self.strides = [4, 8]
        self.size = size
        self.grids = grids

    def forward(self):
        anchors = []
        for k, g in enumerate(self.grids):
            levels = self.levels[k]
            for i, j in product(range(g[0]), range(g[1])):
                for box in levels:
                    s_kx = box / self.size[1]
                    s_ky = box / self.size[0]
                    if box == 32:
                        dense_cx = [x * self.strides[k] / self.size[1] for x in [j + 0, j + 0.25, j + 0.5, j + 0.75]]
                        dense_cy = [y * self.strides[k] / self.size[0] for y in [i + 0, i + 0.25, i + 0.5, i + 0.75]]
                        for cy, cx in product(dense_cy, dense_cx):
                            anchors += [cx, cy, s_kx, s_ky]
                    elif box == 64:
                        dense_cx = [x * self.strides[k] / self.size[1] for x in [j + 0, j + 0.5]]
                        dense_cy = [y * self.strides[k] / self.size[0] for y in [i + 0, i + 0.5]]
                        for cy, cx in product(dense_cy, dense_cx):
                            anchors += [cx, cy, s_kx, s_ky]
                    else:
                        cx = (j + 0.5) * self.strides[k] / self.size[1]
                        cy = (i + 0.5) * self.strides[k] / self.size[0]
                        anchors += [cx, cy, s_kx, s_ky]
        output = torch.Tensor(anchors).view(-1, 4)
        return output


class FaceBoxes(nn.Module):
    def forward(self, x):
        h, w = x.shape[2:]
        grids = [[(h + 3) // 4, (w + 3) // 4], [(h + 7) // 8, (w + 7) // 8]]
        return Boxes((h, w), grids).forward() * x.mean()


def build() -> nn.Module:
    return FaceBoxes()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 9, 13, generator=generator) + 1,)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}
