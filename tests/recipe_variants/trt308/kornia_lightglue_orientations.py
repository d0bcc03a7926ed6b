"""Keypoint orientations for LightGlue: ``torch.rad2deg`` of the frames, then ``torch.deg2rad``: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/integrated.py,
``_lightglue_keypoint_scale_ori`` (lines 63-80): the local affine frames' orientations
(``get_laf_orientation``, kornia/feature/laf.py:170-172, an atan2 turned into degrees with
``torch.rad2deg``) are flattened to one row and turned back into radians with
``torch.deg2rad(get_laf_orientation(lafs).reshape(1, -1))``; for SIFT they are negated and wrapped
into (-pi, pi]. Written here in our own words as a module over the frames, with the
orientation inlined and the SIFT branch taken (the scale is left out).
"""

import math

import torch
from torch import nn


def get_laf_orientation(LAF):
    angle_rad = torch.atan2(LAF[..., 0, 1], LAF[..., 0, 0])
    return torch.rad2deg(angle_rad).unsqueeze(-1)


class LightGlueOrientations(nn.Module):
    def forward(self, lafs):
        oris = torch.deg2rad(get_laf_orientation(lafs).reshape(1, -1))
        oris = -oris
        return torch.where(oris <= -math.pi, oris + 2.0 * math.pi, oris)


def build() -> nn.Module:
    return LightGlueOrientations()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 6, 2, 3, generator=generator),)


DYNAMIC = {"lafs": {1: "frames"}}
