"""EfficientDet's anchor matching similarity: the pairwise IoU of two box lists, where a pair
that does not intersect gets 0 from ``torch.where(intersections == 0.0, zeros_like, inter /
unions)``. The branch not selected is a division: for a pair that does not intersect it is
``0 / union``, finite when the union has an area, and ``0 / 0 = NaN`` when both boxes are empty
(the guard then hides the NaN; the blend lets it through: the rule's stated assumption).

Reduced from rwightman/efficientdet-pytorch at tag v0.4.1 (the PyPI release the zoo unpacks),
effdet/object_detection/region_similarity_calculator.py:24-73 (``area``: ``(y_max - y_min) *
(x_max - x_min)``; ``intersection``: the boxes split with ``chunk(4, dim=1)``, pairwise
``torch.min``/``torch.max`` against the transposed columns, heights and widths clamped at 0;
``iou``: ``unions = areas1.unsqueeze(1) + areas2.unsqueeze(0) - intersections`` and the select),
written here in our own words on plain ``[N, 4]`` tensors instead of ``BoxList``.
"""

import torch
from torch import Tensor, nn


def _area(boxes: Tensor) -> Tensor:
    y_min, x_min, y_max, x_max = boxes.chunk(4, dim=1)
    return ((y_max - y_min) * (x_max - x_min)).squeeze(1)


def _intersection(boxes1: Tensor, boxes2: Tensor) -> Tensor:
    y_min1, x_min1, y_max1, x_max1 = boxes1.chunk(4, dim=1)
    y_min2, x_min2, y_max2, x_max2 = boxes2.chunk(4, dim=1)
    heights = torch.clamp(torch.min(y_max1, y_max2.t()) - torch.max(y_min1, y_min2.t()), min=0)
    widths = torch.clamp(torch.min(x_max1, x_max2.t()) - torch.max(x_min1, x_min2.t()), min=0)
    return heights * widths


class PairwiseIoU(nn.Module):
    def forward(self, boxes1: Tensor, boxes2: Tensor) -> Tensor:
        intersections = _intersection(boxes1, boxes2)
        unions = _area(boxes1).unsqueeze(1) + _area(boxes2).unsqueeze(0) - intersections
        return torch.where(intersections == 0.0, torch.zeros_like(intersections), intersections / unions)


def build() -> nn.Module:
    return PairwiseIoU()


def boxes(count: int, generator: torch.Generator) -> Tensor:
    """``count`` boxes (y_min, x_min, y_max, x_max) with positive sides, some far from the others."""
    corner = torch.rand(count, 2, generator=generator) * 10
    size = torch.rand(count, 2, generator=generator) * 4 + 0.5
    return torch.cat([corner, corner + size], dim=1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return boxes(4, generator), boxes(6, generator)


DYNAMIC = {"boxes1": {0: "n"}, "boxes2": {0: "m"}}
