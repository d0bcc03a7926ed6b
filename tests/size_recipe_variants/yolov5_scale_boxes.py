"""The letterbox gain as a minimum of two quotients of sizes: YOLOv5's ``scale_boxes``.

Reduced from the ``yolov5`` 7.0.14 wheel (the packaged original YOLOv5), utils/general.py:799-812
(``scale_boxes``: ``gain = min(img1_shape[0] / img0_shape[0], img1_shape[1] / img0_shape[1])``, the
padding ``(img1_shape[1] - img0_shape[1] * gain) / 2``, boxes shifted and divided by the gain) and
:814-822 (``clip_boxes``, its tensor branch), written here in our own words. The model's own input
size is ``img1_shape`` (``x.shape[2:]``, as the library's ``detect.py`` passes ``im.shape[2:]``) and
the original image's is a constant. The original shifts ``boxes[..., [0, 2]]``; that write after an
Ellipsis is another recipe (the TorchScript exporter writes a graph ONNX Runtime refuses), so the
columns are shifted one by one here.
"""

import torch
from torch import nn


def clip_boxes(boxes, shape):
    boxes[..., 0].clamp_(0, shape[1])
    boxes[..., 1].clamp_(0, shape[0])
    boxes[..., 2].clamp_(0, shape[1])
    boxes[..., 3].clamp_(0, shape[0])


def scale_boxes(img1_shape, boxes, img0_shape, ratio_pad=None):
    if ratio_pad is None:
        gain = min(img1_shape[0] / img0_shape[0], img1_shape[1] / img0_shape[1])
        pad = (img1_shape[1] - img0_shape[1] * gain) / 2, (img1_shape[0] - img0_shape[0] * gain) / 2
    else:
        gain = ratio_pad[0][0]
        pad = ratio_pad[1]
    boxes[..., 0] -= pad[0]
    boxes[..., 2] -= pad[0]
    boxes[..., 1] -= pad[1]
    boxes[..., 3] -= pad[1]
    boxes[..., :4] /= gain
    clip_boxes(boxes, img0_shape)
    return boxes


class BoxesToOriginal(nn.Module):
    """Boxes predicted on the letterboxed input, returned in the original image's pixels."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)
        self.original_shape = (480, 640)

    def forward(self, x):
        boxes = self.conv(x).flatten(2).transpose(1, 2).sigmoid() * 32.0 + 32.0
        return scale_boxes(x.shape[2:], boxes, self.original_shape)


def build() -> nn.Module:
    return BoxesToOriginal()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 60, 64, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
