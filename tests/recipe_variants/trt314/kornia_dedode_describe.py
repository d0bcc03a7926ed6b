"""Descriptors sampled at keypoints and turned to one row per keypoint: kornia's DeDoDe.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/dedode/dedode.py, ``DeDoDe.describe``
(lines 236-287): the dense descriptor map, cropped to the image (``descriptions[..., :H, :W]``), is
sampled bilinearly at the normalised keypoints with ``F.grid_sample(descriptions.float(),
keypoints[:, None], mode="bilinear", align_corners=False)``, and the sample, indexed ``[:, :, 0]`` on
its own lines, is transposed with ``.mT`` to ``(B, N, C)``: the property read on a call's subscript
that spans three lines. The DINOv2/VGG descriptor is one convolution here, and the ImageNet
normalisation and padding to multiples of 14 are left out. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DeDoDeDescribe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.descriptor = nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, images, keypoints):
        H, W = images.shape[-2:]
        descriptions = self.descriptor(images)
        descriptions = descriptions[..., :H, :W]
        return F.grid_sample(descriptions.float(), keypoints[:, None], mode="bilinear", align_corners=False)[
            :, :, 0
        ].mT


def build() -> nn.Module:
    torch.manual_seed(0)
    return DeDoDeDescribe().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 3, 10, 12, generator=generator), torch.rand(2, 7, 2, generator=generator) * 2 - 1


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}, "keypoints": {0: "batch", 1: "keypoints"}}
