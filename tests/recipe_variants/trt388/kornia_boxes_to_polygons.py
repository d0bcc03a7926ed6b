"""kornia's boxes as quadrilaterals: each box's top-left corner written into its four vertices.

Reduced from kornia/kornia @ b4f5a78a13891c7ac4c1cd9695941380273e981d, kornia/geometry/boxes.py:
``_boxes_to_quadrilaterals`` (the ``"xyxy"`` mode of ``Boxes.from_tensor``) takes the width and height of each
box and calls ``_boxes_to_polygons``, which makes a ``(B, N, 4, 2)`` tensor of zeros, writes every box's corner
into all four of its vertices with ``polygons[..., 0] = xmin.unsqueeze(-1)`` and ``polygons[..., 1] =
ymin.unsqueeze(-1)`` (lines 88-89: a ``(B, N, 1)`` value into the ``(B, N, 4)`` part) and then shifts three of
the vertices by the width and the height. Kept: the width and height of the ``xyxy`` mode, the zeros, the two
broadcast writes and the four shifts, in their form. Reduced: no validation (the boxes are made valid), no
other modes; the forward returns the vertices. Written here in our own words. The number of boxes follows the
input: the TorchScript export broadcasts each corner to the example's ``(B, N, 4)``.
"""

import torch
from torch import nn

DYNAMIC = {"boxes": {0: "batch", 1: "boxes"}}
#: The line of the first broadcast write (the rule's finding; the second is the next line).
CALL = "polygons[..., 0] = xmin.unsqueeze(-1)"


def _boxes_to_polygons(xmin: torch.Tensor, ymin: torch.Tensor, width: torch.Tensor,
                       height: torch.Tensor) -> torch.Tensor:
    polygons = torch.zeros((xmin.shape[0], xmin.shape[1], 4, 2), device=xmin.device, dtype=xmin.dtype)
    polygons[..., 0] = xmin.unsqueeze(-1)
    polygons[..., 1] = ymin.unsqueeze(-1)
    polygons[..., 1, 0] += width - 1
    polygons[..., 2, 0] += width - 1
    polygons[..., 2, 1] += height - 1
    polygons[..., 3, 1] += height - 1
    return polygons


class BoxesToQuadrilaterals(nn.Module):
    def forward(self, boxes):
        height, width = boxes[..., 3] - boxes[..., 1], boxes[..., 2] - boxes[..., 0]
        xmin, ymin = boxes[..., 0], boxes[..., 1]
        return _boxes_to_polygons(xmin, ymin, width, height)


def build() -> nn.Module:
    return BoxesToQuadrilaterals().eval()


def inputs(generator: torch.Generator, batch: int = 2, boxes: int = 3) -> tuple[torch.Tensor, ...]:
    """``batch`` images of ``boxes`` valid ``xyxy`` boxes each (corners in a 64-pixel image, sizes 2 to 20)."""
    corner = torch.rand(batch, boxes, 2, generator=generator) * 40
    size = 2 + torch.rand(batch, boxes, 2, generator=generator) * 18
    return (torch.cat([corner, corner + size], -1),)
