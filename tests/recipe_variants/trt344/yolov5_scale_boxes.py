"""YOLOv5's box rescaling: detections in the letterboxed input's pixels moved back to the original image.

Reduced from ultralytics/yolov5 at commit 5081342f04fb287fc2e5f2b5a4e06752b7937b1c, utils/general.py,
``scale_boxes`` (lines 613-627): the letterbox's padding is subtracted from the x and the y
coordinates with ``boxes[..., [0, 2]] -= pad[0]`` and ``boxes[..., [1, 3]] -= pad[1]`` (lines
622-623), all four divided by the gain, then ``clip_boxes`` clamps each column in place to the
original image (its tensor branch, ``boxes[..., 0].clamp_(0, shape[1])`` and so on). Here a 1x1
convolution stands in for the detector: each cell of its output is a box (cx, cy, w, h) in the
640x640 input's pixels and a score, decoded to corners and rescaled to a 720x1280 image. Written
here in our own words.
"""

import torch
from torch import nn

INPUT_SHAPE = (640, 640)
IMAGE_SHAPE = (720, 1280)


def scale_boxes(img1_shape, boxes, img0_shape):
    gain = min(img1_shape[0] / img0_shape[0], img1_shape[1] / img0_shape[1])
    pad = (img1_shape[1] - img0_shape[1] * gain) / 2, (img1_shape[0] - img0_shape[0] * gain) / 2
    boxes[..., [0, 2]] -= pad[0]
    boxes[..., [1, 3]] -= pad[1]
    boxes[..., :4] /= gain
    clip_boxes(boxes, img0_shape)
    return boxes


def clip_boxes(boxes, shape):
    boxes[..., 0].clamp_(0, shape[1])
    boxes[..., 1].clamp_(0, shape[0])
    boxes[..., 2].clamp_(0, shape[1])
    boxes[..., 3].clamp_(0, shape[0])


class Detect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(8, 5, 1)

    def forward(self, features):
        out = self.head(features).flatten(2).transpose(1, 2)  # (batch, cells, 5)
        xy = out[..., :2].sigmoid() * 640
        wh = out[..., 2:4].exp() * 32
        boxes = torch.cat([xy - wh / 2, xy + wh / 2, out[..., 4:].sigmoid()], -1)
        return scale_boxes(INPUT_SHAPE, boxes, IMAGE_SHAPE)


def build() -> nn.Module:
    return Detect().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 4, 5, generator=generator) * 2,)


DYNAMIC = {"features": {0: "batch", 2: "height", 3: "width"}}
