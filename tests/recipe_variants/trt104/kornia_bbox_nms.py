"""kornia's ``nms`` keeps the highest-scoring box, finds the remaining boxes whose overlap with it
is at most the threshold, ``inds = torch.where(ovr <= iou_threshold)[0]``, and goes on with
``order = order[inds + 1]`` (``+ 1``: the overlaps were of ``order[1:]``) ``while order.shape[0]
> 0``. The trip count is the number of boxes kept: the size of a one-argument ``where``, shifted
by a number before it indexes.

Reduced from kornia/kornia at commit b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/geometry/bbox.py, ``nms`` (lines 537-593; the loop at 574-589). Written here in our own
words: the three input checks become one, the docstring goes; the loop, the kept list of 0-d
index tensors and the two returns (stacked where a box is kept, ``torch.tensor(keep)`` where
none is) are kept as they are. Before, TRT104 did not report the loop: an index computed from a
selection (``inds + 1``) was not read as a selection. It is now reported, and not scripted:
``torch.tensor`` of a list started empty raises in a scripted function where no box is kept.
"""

import torch
from torch import nn


def nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float) -> torch.Tensor:
    if boxes.shape[0] != scores.shape[0]:
        raise ValueError("boxes and scores differ in length")
    x1, y1, x2, y2 = boxes.unbind(-1)
    areas = (x2 - x1) * (y2 - y1)
    _, order = scores.sort(descending=True)
    keep = []
    while order.shape[0] > 0:
        i = order[0]
        keep.append(i)
        xx1 = torch.max(x1[i], x1[order[1:]])
        yy1 = torch.max(y1[i], y1[order[1:]])
        xx2 = torch.min(x2[i], x2[order[1:]])
        yy2 = torch.min(y2[i], y2[order[1:]])
        w = torch.clamp(xx2 - xx1, min=0.0)
        h = torch.clamp(yy2 - yy1, min=0.0)
        inter = w * h
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        inds = torch.where(ovr <= iou_threshold)[0]
        order = order[inds + 1]
    if len(keep) > 0:
        return torch.stack(keep)
    return torch.tensor(keep)


class Detector(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        return nms(boxes, scores, iou_threshold=0.5)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # a pair of overlapping boxes and a box apart: two kept
    boxes = torch.tensor([[1.0, 1.0, 3.0, 3.0], [1.1, 1.0, 3.0, 3.2], [6.0, 6.0, 8.0, 8.0]])
    return boxes, torch.tensor([0.6, 0.95, 0.8])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}}
