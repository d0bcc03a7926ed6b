"""Rotated boxes from four corners to centre-free ``(x1, y1, w, h, r)``: the angle by ``torch.atan2``.

Reduced from torchvision 0.29.1 (the PyPI wheel), torchvision/ops/_box_convert.py,
``_box_xyxyxyxy_to_xywhr`` (lines 180-206): the corners are unbound, the rotation is
``torch.atan2(y1 - y2, x2 - x1)`` in degrees (lines 197-198) and the side lengths are the corner
distances. Written here in our own words for floating-point boxes (the integer path's in-place
``round_`` is left out). An axis-aligned box whose first edge runs right to left (y1 == y2,
x2 < x1) is at 180 degrees, and the difference of equal coordinates is +0.
"""

import torch
from torch import nn


class RotatedBoxConvert(nn.Module):
    def forward(self, boxes):
        x1, y1, x2, y2, x3, y3, x4, y4 = boxes.unbind(-1)
        r_rad = torch.atan2(y1 - y2, x2 - x1)
        r = r_rad * 180 / torch.pi
        w = ((x2 - x1) ** 2 + (y1 - y2) ** 2).sqrt()
        h = ((x3 - x2) ** 2 + (y3 - y2) ** 2).sqrt()
        return torch.stack((x1, y1, w, h, r), dim=-1)


def build() -> nn.Module:
    return RotatedBoxConvert()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 8, generator=generator) * 10,)


DYNAMIC = {"boxes": {0: "boxes"}}
