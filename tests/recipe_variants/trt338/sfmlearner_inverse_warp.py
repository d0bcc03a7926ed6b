"""SfMLearner's view synthesis: the target depth is lifted into camera coordinates with the
inverse intrinsics, written as the method ``intrinsics.inverse()`` in the call
``pixel2cam(depth, intrinsics.inverse())``, moved by the 6-DoF pose, projected with
``intrinsics @ pose_mat`` and the source image sampled there.

Reduced from ClementPinard/SfmLearner-Pytorch at commit 59689e6045dbd8199bb8b7665cd61596e52108bc
(2026-04-15), inverse_warp.py: ``pixel2cam`` (lines 26-40), ``cam2pixel`` (lines 43-69),
``euler2mat`` (line 72 on) and ``inverse_warp`` (lines 155-186; the inverse at line 175). Written
here in our own words: the pixel grid is built on each call (the original caches it in a module
global, which a trace would freeze at the example's size), and only the Euler rotation mode is
kept.
"""

import torch
import torch.nn.functional as F
from torch import nn


def pixel2cam(depth, intrinsics_inv):
    b, h, w = depth.size()
    rows = torch.arange(0, h, dtype=depth.dtype).view(1, h, 1).expand(b, h, w)
    cols = torch.arange(0, w, dtype=depth.dtype).view(1, 1, w).expand(b, h, w)
    pixels = torch.stack((cols, rows, torch.ones_like(depth)), dim=1).reshape(b, 3, -1)
    return (intrinsics_inv @ pixels).reshape(b, 3, h, w) * depth.unsqueeze(1)


def cam2pixel(cam_coords, rot, tr):
    b, _, h, w = cam_coords.size()
    points = rot @ cam_coords.reshape(b, 3, -1) + tr
    z = points[:, 2].clamp(min=1e-3)
    x_norm = 2 * (points[:, 0] / z) / (w - 1) - 1
    y_norm = 2 * (points[:, 1] / z) / (h - 1) - 1
    return torch.stack([x_norm, y_norm], dim=2).reshape(b, h, w, 2)


def euler2mat(angle):
    b = angle.size(0)
    x, y, z = angle[:, 0], angle[:, 1], angle[:, 2]
    zeros, ones = torch.zeros_like(z), torch.ones_like(z)
    zmat = torch.stack([z.cos(), -z.sin(), zeros, z.sin(), z.cos(), zeros, zeros, zeros, ones], dim=1).reshape(b, 3, 3)
    ymat = torch.stack([y.cos(), zeros, y.sin(), zeros, ones, zeros, -y.sin(), zeros, y.cos()], dim=1).reshape(b, 3, 3)
    xmat = torch.stack([ones, zeros, zeros, zeros, x.cos(), -x.sin(), zeros, x.sin(), x.cos()], dim=1).reshape(b, 3, 3)
    return xmat @ ymat @ zmat


class InverseWarp(nn.Module):
    def forward(self, img, depth, pose, intrinsics):
        cam_coords = pixel2cam(depth, intrinsics.inverse())
        pose_mat = torch.cat([euler2mat(pose[:, 3:]), pose[:, :3].unsqueeze(-1)], dim=2)
        proj_cam_to_src_pixel = intrinsics @ pose_mat
        rot, tr = proj_cam_to_src_pixel[..., :3], proj_cam_to_src_pixel[..., -1:]
        src_pixel_coords = cam2pixel(cam_coords, rot, tr)
        return F.grid_sample(img, src_pixel_coords, padding_mode="zeros", align_corners=True)


def intrinsics_for(batch: int, height: int, width: int, generator: torch.Generator) -> torch.Tensor:
    k = torch.zeros(batch, 3, 3)
    k[:, 0, 0] = width * (0.8 + 0.4 * torch.rand(batch, generator=generator))
    k[:, 1, 1] = height * (0.8 + 0.4 * torch.rand(batch, generator=generator))
    k[:, 0, 2], k[:, 1, 2], k[:, 2, 2] = (width - 1) / 2, (height - 1) / 2, 1.0
    return k


def example(generator: torch.Generator, batch: int, height: int, width: int) -> tuple:
    pose = 0.05 * torch.randn(batch, 6, generator=generator)
    return (torch.randn(batch, 3, height, width, generator=generator),
            1.0 + 9.0 * torch.rand(batch, height, width, generator=generator), pose,
            intrinsics_for(batch, height, width, generator))


def build() -> nn.Module:
    return InverseWarp()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return example(generator, 2, 5, 7)


DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}, "depth": {0: "batch", 1: "height", 2: "width"},
           "pose": {0: "batch"}, "intrinsics": {0: "batch"}}
