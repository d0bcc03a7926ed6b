"""Rotation matrices from three angles in degrees, through ``torch.torch.deg2rad``: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/transform/imgwarp.py,
``get_projective_transform`` (lines 1575-1630, behind ``warp_affine3d`` and the 3-D affine
augmentations): the angles, one row of three per batch entry, are turned into radians with
``torch.torch.deg2rad(angles)`` (``torch.torch`` is the torch module again) and taken as an axis-angle
vector for ``axis_angle_to_rotation_matrix``, then scaled. Written here in our own words as a
module that builds the rotation by Rodrigues' formula (kornia's helper does the same, with a
Taylor branch near zero that is left out) and scales its columns.
"""

import torch
from torch import nn


class ProjectiveRotation(nn.Module):
    def forward(self, angles, scales):
        axis_angle_rad: torch.Tensor = torch.torch.deg2rad(angles)
        theta = axis_angle_rad.norm(dim=-1, keepdim=True).clamp_min(1e-6)
        x, y, z = (axis_angle_rad / theta).unbind(-1)
        zero = torch.zeros_like(x)
        cross = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], dim=-1).reshape(-1, 3, 3)
        sin, cos = theta.sin().unsqueeze(-1), theta.cos().unsqueeze(-1)
        eye = torch.eye(3, dtype=angles.dtype).expand_as(cross)
        rmat = eye + sin * cross + (1 - cos) * (cross @ cross)
        return rmat * scales.unsqueeze(dim=1)


def build() -> nn.Module:
    return ProjectiveRotation()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(5, 3, generator=generator) - 0.5) * 360, torch.rand(5, 3, generator=generator) + 0.5


DYNAMIC = {"angles": {0: "batch"}, "scales": {0: "batch"}}
