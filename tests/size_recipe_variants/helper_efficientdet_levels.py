"""NumPy on sizes in a helper that returns the array: EfficientDet's anchors gathered per level in lists.

Reduced from zylo117/Yet-Another-EfficientDet-Pytorch @ 15403b5371a64defb2a7c74e162c6e880a7f462c,
efficientdet/utils.py:107-134 (per stride and scale: ``np.arange(stride / 2, image_shape[1], stride)``,
``np.meshgrid``, ``.reshape(-1)``, ``np.vstack`` of float offsets, ``np.swapaxes``, ``np.expand_dims``
appended to a level list, ``np.concatenate(boxes_level, axis=1)``, ``.reshape([-1, 4])`` appended, then
``np.vstack(boxes_all)`` and ``torch.from_numpy(anchor_boxes.astype(dtype))``), written here in our own
words as a helper on the sizes, with one ratio.
"""

import numpy as np
import torch
from torch import nn

_STRIDES = (4, 8)
_SCALES = (1.0, 1.5)


def _anchor_boxes(h: int, w: int):
    levels = []
    for stride in _STRIDES:
        level = []
        for scale in _SCALES:
            half = 4.0 * stride * scale / 2.0
            x = np.arange(stride / 2, w, stride)
            y = np.arange(stride / 2, h, stride)
            xv, yv = np.meshgrid(x, y)
            xv = xv.reshape(-1)
            yv = yv.reshape(-1)
            boxes = np.vstack((yv - half, xv - half, yv + half, xv + half))
            boxes = np.swapaxes(boxes, 0, 1)
            level.append(np.expand_dims(boxes, axis=1))
        level = np.concatenate(level, axis=1)
        levels.append(level.reshape(-1, 4))
    return np.vstack(levels)


class Anchors(nn.Module):
    def forward(self, image):
        boxes = torch.from_numpy(_anchor_boxes(image.shape[2], image.shape[3]).astype(np.float32))
        return boxes.unsqueeze(0) + image.mean()


def build() -> nn.Module:
    return Anchors()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 24, generator=generator),)


DYNAMIC = {"image": {2: "h", 3: "w"}}
