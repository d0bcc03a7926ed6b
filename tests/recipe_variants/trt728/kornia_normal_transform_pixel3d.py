"""kornia's 3-D pixel-to-[-1, 1] normalization matrix: a 4 x 4 literal built in the forward pass,
whose diagonal is then set in place from the volume's size.

Reduced from kornia/kornia at commit b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/geometry/conversions.py, ``normal_transform_pixel3d`` (lines 1766-1803): it binds ``tr_mat`` to
``torch.tensor`` of ``[[1.0, 0.0, 0.0, -1.0], ..., [0.0, 0.0, 0.0, 1.0]]`` (the device and dtype given),
works out the denominators (``eps`` for a singleton axis, else ``size - 1.0``) and scales the
diagonal in place, ``tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom`` and the same for height and
depth; ``normalize_homography3d`` and the 3-D warps call it with the volume's sizes at run time.
Written here in our own words: the model applies the matrix to the homogeneous voxel coordinates
of its input volume (a coordinate channel block, as a CoordConv-style 3-D network appends) and
returns the features with the normalized coordinates; the other callers are left out.
"""

from typing import Optional

import torch
from torch import nn


def normal_transform_pixel3d(depth: int, height: int, width: int, eps: float = 1e-14,
                             device: Optional[torch.device] = None,
                             dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    tr_mat = torch.tensor(
        [[1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, -1.0], [0.0, 0.0, 1.0, -1.0], [0.0, 0.0, 0.0, 1.0]],
        device=device,
        dtype=dtype,
    )
    width_denom: float = eps if width == 1 else width - 1.0
    height_denom: float = eps if height == 1 else height - 1.0
    depth_denom: float = eps if depth == 1 else depth - 1.0
    tr_mat[0, 0] = tr_mat[0, 0] * 2.0 / width_denom
    tr_mat[1, 1] = tr_mat[1, 1] * 2.0 / height_denom
    tr_mat[2, 2] = tr_mat[2, 2] * 2.0 / depth_denom
    return tr_mat.unsqueeze(0)


class VoxelCoordinates(nn.Module):
    def forward(self, volume: torch.Tensor) -> torch.Tensor:
        # volume: (B, C, D, H, W) -> (B, D*H*W, C + 3): each voxel's features and its (x, y, z) in [-1, 1]
        batch, channels, depth, height, width = volume.shape
        norm_from_pix = normal_transform_pixel3d(depth, height, width, device=volume.device, dtype=volume.dtype)
        zs, ys, xs = torch.meshgrid(torch.arange(depth, dtype=volume.dtype), torch.arange(height, dtype=volume.dtype),
                                    torch.arange(width, dtype=volume.dtype), indexing="ij")
        pixels = torch.stack([xs.flatten(), ys.flatten(), zs.flatten(), torch.ones_like(xs.flatten())], dim=0)
        normalized = (norm_from_pix[0] @ pixels)[:3].transpose(0, 1)
        features = volume.flatten(2).transpose(1, 2)
        return torch.cat([features, normalized.expand(batch, -1, -1)], dim=-1)


def build() -> nn.Module:
    return VoxelCoordinates().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 3, 4, 5, generator=generator),)


DYNAMIC = {"volume": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
