"""kornia's LoFTR keypoint warping: keypoints of image 0 are lifted with their sampled depth,
unprojected with the inverse intrinsics written as a method inside a matrix product,
``K0.inverse() @ kpts0_h.transpose(2, 1)``, moved by the relative pose ``T_0to1``, projected with
``K1`` and checked for covisibility and depth consistency against image 1's depth.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/loftr/utils/geometry.py, ``warp_kpts``
(lines 24-83; the inverse at line 59). Written here in our own words: the keypoints out of view
are zeroed with ``torch.where`` rather than an in-place masked assignment; the per-image depth
lookups (a comprehension over the batch, which a trace unrolls for the example's batch) are kept,
so the batch is not a dynamic axis here.
"""

import torch
from torch import nn


class WarpKeypoints(nn.Module):
    def forward(self, kpts0, depth0, depth1, T_0to1, K0, K1):
        kpts0_long = kpts0.round().long()
        kpts0_depth = torch.stack(
            [depth0[i, kpts0_long[i, :, 1], kpts0_long[i, :, 0]] for i in range(kpts0.shape[0])], dim=0)
        nonzero_mask = kpts0_depth != 0

        kpts0_h = torch.cat([kpts0, torch.ones_like(kpts0[:, :, [0]])], dim=-1) * kpts0_depth[..., None]
        kpts0_cam = K0.inverse() @ kpts0_h.transpose(2, 1)

        w_kpts0_cam = T_0to1[:, :3, :3] @ kpts0_cam + T_0to1[:, :3, [3]]
        w_kpts0_depth_computed = w_kpts0_cam[:, 2, :]
        w_kpts0_h = (K1 @ w_kpts0_cam).transpose(2, 1)
        w_kpts0 = w_kpts0_h[:, :, :2] / (w_kpts0_h[:, :, [2]] + 1e-4)

        h, w = depth1.shape[1:3]
        covisible_mask = (w_kpts0[:, :, 0] > 0) * (w_kpts0[:, :, 0] < w - 1) * \
            (w_kpts0[:, :, 1] > 0) * (w_kpts0[:, :, 1] < h - 1)
        w_kpts0_long = torch.where(covisible_mask[..., None], w_kpts0.long(), torch.zeros_like(kpts0_long))
        w_kpts0_depth = torch.stack(
            [depth1[i, w_kpts0_long[i, :, 1], w_kpts0_long[i, :, 0]] for i in range(w_kpts0_long.shape[0])], dim=0)
        consistent_mask = ((w_kpts0_depth - w_kpts0_depth_computed) / w_kpts0_depth).abs() < 0.2
        valid_mask = nonzero_mask * covisible_mask * consistent_mask
        return valid_mask, w_kpts0


def camera(generator: torch.Generator, batch: int, height: int, width: int) -> torch.Tensor:
    k = torch.zeros(batch, 3, 3)
    k[:, 0, 0] = k[:, 1, 1] = width * (0.9 + 0.2 * torch.rand(batch, generator=generator))
    k[:, 0, 2], k[:, 1, 2], k[:, 2, 2] = width / 2, height / 2, 1.0
    return k


def example(generator: torch.Generator, batch: int, points: int, height: int = 12, width: int = 16) -> tuple:
    kpts0 = torch.rand(batch, points, 2, generator=generator) * torch.tensor([width - 1.0, height - 1.0])
    depth0 = 2.0 + torch.rand(batch, height, width, generator=generator)
    depth1 = 2.0 + torch.rand(batch, height, width, generator=generator)
    pose = torch.eye(4)[:3].repeat(batch, 1, 1)
    pose[:, :, 3] = 0.05 * torch.randn(batch, 3, generator=generator)
    return kpts0, depth0, depth1, pose, camera(generator, batch, height, width), camera(generator, batch, height, width)


def build() -> nn.Module:
    return WarpKeypoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return example(generator, 2, 9)


DYNAMIC = {"kpts0": {1: "points"}}
