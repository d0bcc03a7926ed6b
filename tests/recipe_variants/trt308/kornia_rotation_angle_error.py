"""The geodesic angle between two rotations, in degrees, as ``torch.rad2deg`` of an atan2: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/metrics/pose.py, ``angle_error_mat`` (lines
51-97) and ``_angle_deg`` (lines 41-48): the relative rotation's trace gives the cosine and its
skew part the sine, and the angle is ``torch.rad2deg(-torch.atan2(-sin_theta, cos_theta))`` (the
negations pick the sign ONNX's atan2 gives at -0), with NaN kept where the inputs were NaN.
Written here in our own words as a module over two batches of 3 x 3 matrices; the shape checks
are left out.
"""

import torch
from torch import nn


class RotationAngleError(nn.Module):
    def forward(self, R1, R2):
        relative = R1.transpose(-2, -1) @ R2
        cos_theta = (relative.diagonal(dim1=-2, dim2=-1).sum(-1) - 1.0) / 2.0
        skew = relative - relative.transpose(-2, -1)
        sin_theta = 0.5 * torch.stack((skew[..., 2, 1], skew[..., 0, 2], skew[..., 1, 0]), dim=-1).norm(dim=-1)
        theta = torch.rad2deg(-torch.atan2(-sin_theta, cos_theta))
        nan = sin_theta + cos_theta
        return torch.where(torch.isnan(nan), nan, theta)


def build() -> nn.Module:
    return RotationAngleError()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.linalg.qr(torch.randn(4, 3, 3, generator=generator))[0], torch.linalg.qr(
        torch.randn(4, 3, 3, generator=generator))[0]


DYNAMIC = {"R1": {0: "pairs"}, "R2": {0: "pairs"}}
