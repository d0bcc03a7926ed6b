"""NumPy on sizes: EfficientDet's anchors from the image size, float ranges and swapped axes.

Reduced from zylo117/Yet-Another-EfficientDet-Pytorch @ 15403b5371a64defb2a7c74e162c6e880a7f462c,
efficientdet/utils.py:117-134 (``np.arange(stride / 2, image_shape[1], stride)``, ``np.meshgrid``,
``.reshape(-1)``, ``np.vstack`` of float offsets, ``np.swapaxes``, ``np.expand_dims``,
``torch.from_numpy(....astype(dtype))``), written here in our own words for one level and one
anchor shape (the original collects the levels in Python lists first).
"""

import numpy as np
import torch
from torch import nn


class Anchors(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stride = 4
        self.anchor_scale = 4.0

    def forward(self, image):
        image_shape = image.shape[2:]
        stride = self.stride
        half = self.anchor_scale * stride / 2.0
        x = np.arange(stride / 2, image_shape[1], stride)
        y = np.arange(stride / 2, image_shape[0], stride)
        xv, yv = np.meshgrid(x, y)
        xv = xv.reshape(-1)
        yv = yv.reshape(-1)
        boxes = np.vstack((yv - half, xv - half, yv + half, xv + half))
        boxes = np.swapaxes(boxes, 0, 1)
        boxes = np.expand_dims(boxes, axis=1)
        anchor_boxes = torch.from_numpy(boxes.astype(np.float32)).to(image.device)
        return anchor_boxes.unsqueeze(0) + image.mean()


def build() -> nn.Module:
    return Anchors()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 24, generator=generator),)


DYNAMIC = {"image": {2: "h", 3: "w"}}
