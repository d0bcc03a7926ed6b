"""Ultralytics' ``Boxes.xyxyn`` and ``Boxes.xywhn``: detections normalized by the original image's size.

Reduced from ultralytics 8.4.190 (the pinned wheel), ultralytics/engine/results.py: ``xyxyn``
(lines 1077-1097) clones the corner boxes and writes ``xyxy[..., [0, 2]] /= self.orig_shape[1]``
and ``xyxy[..., [1, 3]] /= self.orig_shape[0]`` (lines 1095-1096); ``xywhn`` (lines 1099-1120)
converts the corners to centre and size with ``ops.xyxy2xywh`` and divides the same way (lines
1118-1119). Here the boxes are a detector's output rows (x1, y1, x2, y2, score, class) and the
original shape is a fixed (height, width) pair, as ``Boxes`` holds it; both normalized forms are
returned, side by side. Written here in our own words.
"""

import torch
from torch import nn

ORIG_SHAPE = (480, 640)


def xyxy2xywh(x):
    y = torch.empty_like(x)
    x1, y1, x2, y2 = x[..., 0], x[..., 1], x[..., 2], x[..., 3]
    y[..., 0] = (x1 + x2) / 2
    y[..., 1] = (y1 + y2) / 2
    y[..., 2] = x2 - x1
    y[..., 3] = y2 - y1
    return y


class NormalizedBoxes(nn.Module):
    def __init__(self, orig_shape=ORIG_SHAPE) -> None:
        super().__init__()
        self.orig_shape = orig_shape

    def forward(self, data):
        xyxy = data[..., :4].clone()
        xyxy[..., [0, 2]] /= self.orig_shape[1]
        xyxy[..., [1, 3]] /= self.orig_shape[0]
        xywh = xyxy2xywh(data[..., :4])
        xywh[..., [0, 2]] /= self.orig_shape[1]
        xywh[..., [1, 3]] /= self.orig_shape[0]
        return torch.cat([xyxy, xywh], -1)


def build() -> nn.Module:
    return NormalizedBoxes().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    corners = torch.rand(7, 2, generator=generator) * torch.tensor([640.0, 480.0])
    size = torch.rand(7, 2, generator=generator) * 100
    rest = torch.rand(7, 2, generator=generator)
    return (torch.cat([corners, corners + size, rest], -1),)


DYNAMIC = {"data": {0: "boxes"}}
