"""torchvision's v2 horizontal flip of bounding boxes: boxes follow their image flipped left to right.

Reduced from pytorch/vision @ d78b462ff3dbe031db007bad5510290b0bf8cfe3,
torchvision/transforms/v2/functional/_geometry.py: ``horizontal_flip_bounding_boxes`` clones the boxes as rows of 4,
and for the XYWH format moves each box's left edge with ``bounding_boxes[:, 0].add_(bounding_boxes[:, 2])
.sub_(canvas_size[1]).neg_()`` (line 79); CXCYWH boxes take ``bounding_boxes[:, 0].sub_(canvas_size[1]).neg_()``.
Kept: the function with its three formats (the XYXY branch writes through a list index, which the rule leaves) and
the canvas size of the image flipped with them. Reduced: the format is a string, the kernel is called from a module
instead of the transform's dispatch. Written here in our own words.
"""

from typing import Tuple

import torch
from torch import nn

DYNAMIC = {"image": {2: "height", 3: "width"}, "boxes": {0: "boxes"}}
#: The line of the chained in-place calls (the rule's finding).
CALL = "bounding_boxes[:, 0].add_(bounding_boxes[:, 2]).sub_(canvas_size[1]).neg_()"


def horizontal_flip_bounding_boxes(
    bounding_boxes: torch.Tensor, format: str, canvas_size: Tuple[int, int]
) -> torch.Tensor:
    shape = bounding_boxes.shape

    bounding_boxes = bounding_boxes.clone().reshape(-1, 4)

    if format == "XYXY":
        bounding_boxes[:, [2, 0]] = bounding_boxes[:, [0, 2]].sub_(canvas_size[1]).neg_()
    elif format == "XYWH":
        bounding_boxes[:, 0].add_(bounding_boxes[:, 2]).sub_(canvas_size[1]).neg_()
    else:  # CXCYWH
        bounding_boxes[:, 0].sub_(canvas_size[1]).neg_()

    return bounding_boxes.reshape(shape)


class FlipBoxes(nn.Module):
    def __init__(self, format: str = "XYWH") -> None:
        super().__init__()
        self.format = format

    def forward(self, image, boxes):
        flipped = horizontal_flip_bounding_boxes(boxes, self.format, (image.shape[-2], image.shape[-1]))
        return image.flip(-1), flipped


def build() -> nn.Module:
    return FlipBoxes().eval()


def inputs(generator: torch.Generator, boxes: int = 5, width: int = 32) -> tuple[torch.Tensor, ...]:
    """An image ``width`` pixels wide and ``boxes`` XYWH boxes inside it."""
    image = torch.rand(1, 3, 24, width, generator=generator)
    corner = torch.rand(boxes, 2, generator=generator) * torch.tensor([width / 2, 12.0])
    size = torch.rand(boxes, 2, generator=generator) * torch.tensor([width / 2, 12.0])
    return image, torch.cat([corner, size], 1)
