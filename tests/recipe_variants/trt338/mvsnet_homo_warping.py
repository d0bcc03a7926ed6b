"""MVSNet's plane-sweep warping: the source camera's 4x4 projection times the inverse of the
reference camera's (``proj = torch.matmul(src_proj, torch.inverse(ref_proj))``), then every
reference pixel at every hypothesised depth is rotated, translated and projected into the source
view, and the source features are sampled there with ``F.grid_sample``.

Reduced from xy-guo/MVSNet_pytorch at commit e0f2ae3d7cb2dd13807b775f2075682eaa7f1521
(2019-04-11), models/module.py, ``homo_warping`` (lines 96-131; the inverse at line 107). Written
here in our own words: a 1x1 convolution stands for the feature network, and the warped volume's
variance over the depth hypotheses is left out; the inverse inside ``torch.matmul`` is kept as the
original writes it.
"""

import torch
import torch.nn.functional as F
from torch import nn


def homo_warping(src_fea, src_proj, ref_proj, depth_values):
    batch, channels = src_fea.shape[0], src_fea.shape[1]
    num_depth = depth_values.shape[1]
    height, width = src_fea.shape[2], src_fea.shape[3]

    with torch.no_grad():
        proj = torch.matmul(src_proj, torch.inverse(ref_proj))
        rot = proj[:, :3, :3]
        trans = proj[:, :3, 3:4]
        ys = torch.arange(0, height, dtype=torch.float32, device=src_fea.device)
        xs = torch.arange(0, width, dtype=torch.float32, device=src_fea.device)
        y, x = torch.meshgrid([ys, xs], indexing="ij")
        y, x = y.reshape(height * width), x.reshape(height * width)
        pixels = torch.stack((x, y, torch.ones_like(x))).unsqueeze(0).repeat(batch, 1, 1)
        rotated = torch.matmul(rot, pixels)
        at_depths = rotated.unsqueeze(2).repeat(1, 1, num_depth, 1) * depth_values.view(batch, 1, num_depth, 1)
        points = at_depths + trans.view(batch, 3, 1, 1)
        xy = points[:, :2] / points[:, 2:3]
        grid = torch.stack((xy[:, 0] / ((width - 1) / 2) - 1, xy[:, 1] / ((height - 1) / 2) - 1), dim=3)

    warped = F.grid_sample(src_fea, grid.view(batch, num_depth * height, width, 2), mode="bilinear",
                           padding_mode="zeros", align_corners=False)
    return warped.view(batch, channels, num_depth, height, width)


class PlaneSweep(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, 4, 1)

    def forward(self, src_img, src_proj, ref_proj, depth_values):
        return homo_warping(self.features(src_img), src_proj, ref_proj, depth_values)


def projections(generator: torch.Generator, batch: int, height: int, width: int) -> torch.Tensor:
    """Camera projections K [R | t] as 4x4 matrices (last row 0 0 0 1), small rotations."""
    angles = 0.1 * torch.randn(batch, 3, generator=generator)
    a, b, c = angles.unbind(-1)
    zero, one = torch.zeros_like(a), torch.ones_like(a)
    rx = torch.stack([one, zero, zero, zero, a.cos(), -a.sin(), zero, a.sin(), a.cos()], -1).view(-1, 3, 3)
    ry = torch.stack([b.cos(), zero, b.sin(), zero, one, zero, -b.sin(), zero, b.cos()], -1).view(-1, 3, 3)
    rz = torch.stack([c.cos(), -c.sin(), zero, c.sin(), c.cos(), zero, zero, zero, one], -1).view(-1, 3, 3)
    extrinsic = torch.eye(4).repeat(batch, 1, 1)
    extrinsic[:, :3, :3] = rx @ ry @ rz
    extrinsic[:, :3, 3] = 0.2 * torch.randn(batch, 3, generator=generator)
    intrinsic = torch.eye(4).repeat(batch, 1, 1)
    intrinsic[:, 0, 0] = intrinsic[:, 1, 1] = 1.2 * width
    intrinsic[:, 0, 2], intrinsic[:, 1, 2] = (width - 1) / 2, (height - 1) / 2
    return intrinsic @ extrinsic


def example(generator: torch.Generator, batch: int, height: int, width: int, depths: int) -> tuple:
    depth_values = 2.0 + torch.rand(batch, depths, generator=generator).sort(-1).values * 4
    return (torch.randn(batch, 3, height, width, generator=generator), projections(generator, batch, height, width),
            projections(generator, batch, height, width), depth_values)


def build() -> nn.Module:
    return PlaneSweep()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return example(generator, 2, 6, 8, 3)


DYNAMIC = {"src_img": {0: "batch", 2: "height", 3: "width"}, "src_proj": {0: "batch"}, "ref_proj": {0: "batch"},
           "depth_values": {0: "batch", 1: "depths"}}
