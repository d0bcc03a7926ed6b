"""kornia's local-feature descriptors: patches described in one batch, viewed back per keypoint.

Reduced from kornia 0.9.0, feature/integrated.py, ``get_laf_descriptors`` (lines 186-194): the patches
around each keypoint come as ``(B, N, CH, H, W)``, are described as one batch of ``B * N`` images, and
the descriptors are reshaped back with ``descriptors.reshape(B, N, descriptors.shape[1:].numel())``.
The patch size is the extractor's constant (32 in kornia), so with the batch and the keypoint count
dynamic the count is the same at every size: the export keeps a right constant. The descriptor here
is a small convolution whose output stays a map. Written here in our own words.
"""

import torch
from torch import nn


class LAFDescriptors(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.describe = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2))

    def forward(self, patches):
        B, N, CH, H, W = patches.size()
        descriptors = self.describe(patches.view(B * N, CH, H, W))
        return descriptors.reshape(B, N, descriptors.shape[1:].numel())


def build() -> nn.Module:
    return LAFDescriptors().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 5, 1, 16, 16, generator=generator),)


DYNAMIC = {"patches": {0: "batch", 1: "keypoints"}}
