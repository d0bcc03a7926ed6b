"""kornia's depth estimation: the predicted depth, at the network's resolution, resized back to the
image's size with a bicubic ``size=tuple(images.shape[-2:])`` resize, as transformers' DPT
``post_process_depth_estimation`` does.

Reduced from kornia 0.9.0 (the PyPI wheel the second zoo unpacks),
kornia/models/depth_estimation/base.py, ``DepthEstimation._estimate`` lines 63-77 (the depth
graph's ``(B, H, W)`` output unsqueezed to ``(B, 1, H, W)``, then ``F.interpolate(depth,
size=tuple(images.shape[-2:]), mode="bicubic", align_corners=False)`` and the dtype of the
images). Written here in our own words: a strided convolution stands in for the ONNX depth
network kornia runs, so the depth comes out at half the image's size.
"""

import torch
import torch.nn.functional as F
from torch import nn


class DepthEstimation(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Conv2d(3, 1, kernel_size=3, stride=2, padding=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        depth = self.net(images.float()).squeeze(1)
        if depth.ndim == 3:
            depth = depth.unsqueeze(1)
        depth = F.interpolate(depth, size=tuple(images.shape[-2:]), mode="bicubic", align_corners=False)
        return depth.to(images.dtype)


def build() -> nn.Module:
    return DepthEstimation()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 10, 14, generator=generator),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
