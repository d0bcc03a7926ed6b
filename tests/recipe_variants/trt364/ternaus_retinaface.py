"""RetinaFace's priors as a function (retinaface_pytorch): the feature maps rounded up from the image
size with ``ceil`` in the same function, the list annotated ``List[float]``, ``anchors += [...]`` in
a ``product`` of ranges, then ``torch.Tensor(anchors).view(-1, 4)``.

Reduced from ternaus/retinaface @ b72317d682c9e17492f5418073073e63c4ce2ce2, retinaface/prior_box.py:8-27
(``priorbox``; the same as retinaface_pytorch 0.0.8 on PyPI), written here in our own words.
"""

from itertools import product
from math import ceil
from typing import List, Tuple

import torch
from torch import nn


def make_priors(sizes: List[List[int]], strides: List[int], size: Tuple[int, int]) -> torch.Tensor:
    grids = [[ceil(size[0] / s), ceil(size[1] / s)] for s in strides]

    anchors: List[float] = []
    for k, grid in enumerate(grids):
        level = sizes[k]
        for i, j in product(range(grid[0]), range(grid[1])):
            for box in level:
                s_kx = box / size[1]
                s_ky = box / size[0]
                dense_cx = [x * strides[k] / size[1] for x in [j + 0.5]]
                dense_cy = [y * strides[k] / size[0] for y in [i + 0.5]]
                for cy, cx in product(dense_cy, dense_cx):
                    anchors += [cx, cy, s_kx, s_ky]

    # the tensor of them
    output = torch.Tensor(anchors).view(-1, 4)
    return output


class Decoder(nn.Module):
    def forward(self, x):
        h, w = x.shape[2:]
        return make_priors([[4, 8], [16]], [2, 4], (h, w)) * x.mean()


def build() -> nn.Module:
    return Decoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 7, 10, generator=generator) + 1,)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}
