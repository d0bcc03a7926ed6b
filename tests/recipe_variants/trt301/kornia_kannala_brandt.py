"""A fisheye (Kannala-Brandt) camera's incidence angle as ``radius.atan2(torch.ones_like(radius))``: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/camera/distortion_kannala_brandt.py,
``_distort_points_kannala_brandt_impl`` (lines 26-68): points on the z = 1 plane get their radius
(lanes outside the nonlinear region moved to a radius of about 1), the angle is
``radius.atan2(torch.ones_like(radius)) * nonlinear_mask`` (line 51), and the distorted radius is
an odd polynomial in it, scaled back onto the point with the focal lengths and principal point;
the caller ``distort_points_kannala_brandt`` (lines 90-114) takes ``radius_sq > 1e-8`` as the mask
and the affine projection elsewhere. Written here in our own words as one module, the float16
reciprocal branch left out. The point at the centre is ordinary data (radius 0, angle 0).
"""

import torch
from torch import nn


class KannalaBrandtDistort(nn.Module):
    def forward(self, points, params):
        x = points[..., 0]
        y = points[..., 1]
        fx, fy = params[..., 0], params[..., 1]
        cx, cy = params[..., 2], params[..., 3]
        k0, k1, k2, k3 = params[..., 4], params[..., 5], params[..., 6], params[..., 7]
        radius_sq = x * x + y * y
        nonlinear_mask = radius_sq > 1e-8
        radius = (radius_sq + ~nonlinear_mask).sqrt()
        theta = radius.atan2(torch.ones_like(radius)) * nonlinear_mask
        theta2 = theta**2
        theta4 = theta2**2
        r_distorted = theta * (1.0 + k0 * theta2 + k1 * theta4 + k2 * theta2 * theta4 + k3 * theta4**2)
        scaling = r_distorted * (1.0 / radius)
        distorted = torch.stack((fx * x * scaling + cx, fy * y * scaling + cy), dim=-1)
        affine = torch.stack((fx * x + cx, fy * y + cy), dim=-1)
        return torch.where(nonlinear_mask[..., None], distorted, affine)


def build() -> nn.Module:
    return KannalaBrandtDistort()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 2, generator=generator), torch.rand(5, 8, generator=generator) + 0.5)


DYNAMIC = {"points": {0: "points"}, "params": {0: "points"}}
