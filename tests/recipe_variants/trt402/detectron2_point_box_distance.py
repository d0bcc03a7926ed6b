"""detectron2's distances from points to box edges: ``points.unsqueeze(dim=2)``, ``boxes.unsqueeze(dim=0)``.

Reduced from facebookresearch/detectron2 at commit 02b5c4e295e990042a714712c21dc79b731e8833,
detectron2/structures/boxes.py, ``pairwise_point_box_distance`` (lines 381-397), which FCOS uses to
find the anchor points inside each ground-truth box: the points get a trailing axis and the box
coordinates a leading one, both with the keyword form ``unsqueeze(dim=...)`` on a receiver that is
then unbound into coordinates (``points.unsqueeze(dim=2).unbind(dim=1)``,
``boxes.tensor.unsqueeze(dim=0).unbind(dim=2)``), and the four broadcast differences are stacked
into (N, M, 4). Written here in our own words with the boxes as a plain (M, 4) tensor (the
original's ``Boxes`` wrapper holds it in ``.tensor``).
"""

import torch
from torch import nn


class PointBoxDistance(nn.Module):
    def forward(self, points, boxes):
        x, y = points.unsqueeze(dim=2).unbind(dim=1)
        x0, y0, x1, y1 = boxes.unsqueeze(dim=0).unbind(dim=2)
        return torch.stack([x - x0, y - y0, x1 - x, y1 - y], dim=2)


def build() -> nn.Module:
    return PointBoxDistance()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    corners = 10 * torch.rand(3, 2, generator=generator)
    return (10 * torch.rand(6, 2, generator=generator), torch.cat([corners, corners + 3], dim=1))


DYNAMIC = {"points": {0: "points"}, "boxes": {0: "boxes"}}
