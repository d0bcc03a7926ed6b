"""kornia's pinhole intrinsics of an image batch, its principal point at half the width and height.

Reduced from kornia 0.9.0, geometry/epipolar/projection.py: ``intrinsics_like`` (lines 32-65) checks the
input is 4-D and the focal positive, reads ``_, _, H, W = input.shape``, makes a batch of identities with
``eye_like(3, input)`` (core/ops.py lines 78-106: ``torch.eye(n, dtype=input.dtype)[None].repeat(B, 1, 1)``),
scales the diagonal by the focal in place and adds ``1.0 * W / 2`` and ``1.0 * H / 2`` to the principal
point in place (lines 63-64). Here the matrix projects a few camera-frame points of each image to pixels.
Written here in our own words.
"""

import torch
from torch import nn


class IntrinsicsProject(nn.Module):
    def __init__(self, focal: float = 50.0) -> None:
        super().__init__()
        self.focal = focal

    def forward(self, image, points):
        _, _, H, W = image.shape
        intrinsics = torch.eye(3, device=image.device, dtype=image.dtype)[None].repeat(image.shape[0], 1, 1)
        intrinsics[..., 0, 0] *= self.focal
        intrinsics[..., 1, 1] *= self.focal
        intrinsics[..., 0, 2] += 1.0 * W / 2
        intrinsics[..., 1, 2] += 1.0 * H / 2
        return points @ intrinsics.transpose(-2, -1)


def build() -> nn.Module:
    return IntrinsicsProject().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 3, 24, 32, generator=generator), torch.randn(2, 5, 3, generator=generator)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}, "points": {0: "batch", 1: "points"}}
