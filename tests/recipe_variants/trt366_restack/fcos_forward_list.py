"""A detector's forward that takes a sequence of images (a batch tensor made one), called with ``list(x)``.

Reduced from oriented_det 0.4.1 (PyPI; DL4EO/oriented-det), oriented_det/models/rotated_fcos.py:785-805
(``RotatedFCOS.forward(images: Sequence[torch.Tensor], ...)``: ``if not isinstance(images, (list, tuple)): images =
[images]``, the image sizes read from each image, the features, then ``images_tensor = torch.stack(images, dim=0)``
for the device and size), called as zoo 29's ``od_*_rows`` wrappers call the feature helper, with ``list(x)``, in our
own words: one convolution, a centerness and a score map cropped to the first image's size.
"""

from typing import Sequence, Tuple

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch"}}


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, images: Sequence[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(images, (list, tuple)):
            images = [images]
        sizes = [(img.shape[-2], img.shape[-1]) for img in images]
        images_tensor = torch.stack(images, dim=0)
        features = self.conv(images_tensor)
        centerness = features[:, :1].sigmoid()
        scores = features[:, 1:, : sizes[0][0], : sizes[0][1]]
        return centerness, scores


class Wrap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = Detector()

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.m(list(x))


def build() -> nn.Module:
    return Wrap()


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 8, 10, generator=generator),)
