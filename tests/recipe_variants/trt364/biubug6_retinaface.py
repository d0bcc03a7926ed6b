"""RetinaFace's priors: per feature map, per cell (``product`` of two ranges), per anchor size, a
one-element list comprehension for the centre, a ``product`` over those lists, ``anchors += [...]``,
then ``torch.Tensor(anchors).view(-1, 4)`` and an optional clamp.

Reduced from biubug6/Pytorch_Retinaface @ b984b4b775b2c4dced95c1eadd195a5c7d32a60b,
layers/functions/prior_box.py:17-34 (``PriorBox.forward``), written here in our own words. The
original computes the feature maps in ``__init__`` with ``ceil``; here the detector hands them in,
computed from the input's size with integer arithmetic the trace keeps.
"""

from itertools import product

import torch
from torch import nn


class Anchors(object):
    def __init__(self, settings, size, grids):
        self.sizes = settings["sizes"]
        self.strides = settings["strides"]
        self.clamp = settings["clamp"]
        self.size = size
        self.grids = grids

    def forward(self):
        anchors = []
        for k, grid in enumerate(self.grids):
            sizes = self.sizes[k]
            for i, j in product(range(grid[0]), range(grid[1])):
                for size in sizes:
                    s_kx = size / self.size[1]
                    s_ky = size / self.size[0]
                    dense_cx = [x * self.strides[k] / self.size[1] for x in [j + 0.5]]
                    dense_cy = [y * self.strides[k] / self.size[0] for y in [i + 0.5]]
                    for cy, cx in product(dense_cy, dense_cx):
                        anchors += [cx, cy, s_kx, s_ky]

        output = torch.Tensor(anchors).view(-1, 4)
        if self.clamp:
            output.clamp_(max=1, min=0)
        return output


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.settings = {"sizes": [[4, 8], [16]], "strides": [2, 4], "clamp": True}

    def forward(self, x):
        h, w = x.shape[2:]
        grids = [[(h + s - 1) // s, (w + s - 1) // s] for s in self.settings["strides"]]
        return Anchors(self.settings, (h, w), grids).forward() * x.mean()


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 8, 12, generator=generator) + 1,)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}
