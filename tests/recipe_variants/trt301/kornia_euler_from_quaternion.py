"""Euler angles from a quaternion, roll and yaw with the method form ``a.atan2(b)``: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/conversions.py,
``euler_from_quaternion`` (lines 1290-1370): the quaternion is normalised, the gimbal-lock pole is
detected from the roll arguments' squared length, and the angles are
``torch.where(gimbal, zero, sinr_cosp).atan2(torch.where(gimbal, one, cosr_cosp))`` (line 1344) and
``yaw_num.atan2(yaw_den)`` (line 1351), the receiver of the method a ``torch.where`` call in one
and a name in the other. Written here in our own words, the three angles stacked; the pitch's
gradient guard around ``asin`` and its snap to +-pi/2 at the pole are left out (a plain ``asin``
of the clamped value).
"""

import torch
from torch import nn


class EulerFromQuaternion(nn.Module):
    def forward(self, quaternion):
        quaternion = quaternion / quaternion.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        w, x, y, z = quaternion.unbind(-1)
        yy = y * y
        sinr_cosp = 2.0 * (w * x + y * z)
        cosr_cosp = 1.0 - 2.0 * (x * x + yy)
        siny_cosp = 2.0 * (w * z + x * y)
        cosy_cosp = 1.0 - 2.0 * (yy + z * z)
        sinp = (2.0 * (w * y - z * x)).clamp(min=-1.0, max=1.0)

        gimbal = sinr_cosp * sinr_cosp + cosr_cosp * cosr_cosp < 4.0 * torch.finfo(w.dtype).eps
        up = sinp > 0.0
        zero = torch.zeros_like(w)
        one = torch.ones_like(w)
        roll = torch.where(gimbal, zero, sinr_cosp).atan2(torch.where(gimbal, one, cosr_cosp))
        double_sin = 2.0 * x * w
        yaw_num = torch.where(gimbal, torch.where(up, -double_sin, double_sin), siny_cosp)
        yaw_den = torch.where(gimbal, w * w - x * x, cosy_cosp)
        yaw = yaw_num.atan2(yaw_den)
        pitch = torch.asin(sinp)
        return torch.stack((roll, pitch, yaw), dim=-1)


def build() -> nn.Module:
    return EulerFromQuaternion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(6, 4, generator=generator),)


DYNAMIC = {"quaternion": {0: "batch"}}
