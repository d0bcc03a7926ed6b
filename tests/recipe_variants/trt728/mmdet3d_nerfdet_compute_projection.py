"""NeRF-Det's camera projection: the intrinsic matrix made a tensor in the forward pass from the
image's metadata, then scaled in place to the feature map's stride.

Reduced from open-mmlab/mmdetection3d at commit fe25f7a51d36e3702f961e198894580d83c4387b,
projects/NeRF-Det/nerfdet/nerfdet.py: ``NerfDet._compute_projection`` (lines 537-553) makes the
3 x 3 intrinsic a tensor with ``torch.tensor`` of the metadata's array, divides its first two rows in
place, ``intrinsic[:2] /= ratio``, by the ratio of the original image height to the feature map's
height (``img_shape`` over the stride), and multiplies it with each extrinsic; ``extract_feat``
(lines 196-215) calls it for every image and projects the voxel centres of ``get_points`` (lines
556-566) with the result in ``backproject`` (lines 570-601). Written here in our own words: the
metadata are the module's NumPy arrays (one camera), the feature map's size gives the image size
(stride 4), and the projected voxel centres are read from the feature map with ``grid_sample``
(zeros outside, and behind the camera) instead of the boolean-mask copy of ``backproject``.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

STRIDE = 4
ORIGINAL_HEIGHT = 96  # the height the intrinsics were calibrated at


def get_points(n_voxels: torch.Tensor, voxel_size: torch.Tensor, origin: torch.Tensor) -> torch.Tensor:
    grid = torch.stack(torch.meshgrid([torch.arange(n_voxels[0]), torch.arange(n_voxels[1]),
                                       torch.arange(n_voxels[2])], indexing="ij"))
    corner = origin - n_voxels / 2.0 * voxel_size
    return grid * voxel_size.view(3, 1, 1, 1) + corner.view(3, 1, 1, 1)


class VoxelBackprojection(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.intrinsic = np.array([[60.0, 0.0, 48.0, 0.0], [0.0, 60.0, 48.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                                   [0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
        self.extrinsics = [np.array([[1.0, 0.0, 0.0, 0.1], [0.0, 0.0, -1.0, 0.2], [0.0, 1.0, 0.0, 2.5],
                                     [0.0, 0.0, 0.0, 1.0]], dtype=np.float32)]
        self.n_voxels, self.voxel_size, self.origin = [4, 3, 2], [0.4, 0.4, 0.5], [0.0, 0.0, 0.0]

    def _compute_projection(self, img_shape: tuple, stride: int) -> torch.Tensor:
        projection = []
        intrinsic = torch.tensor(self.intrinsic[:3, :3])
        ratio = ORIGINAL_HEIGHT / (img_shape[0] / stride)
        intrinsic[:2] /= ratio
        for extrinsic in map(torch.tensor, self.extrinsics):
            projection.append(intrinsic @ extrinsic[:3])
        return torch.stack(projection)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        # features: (1, C, H, W) of an image STRIDE times larger -> (1, C, X, Y, Z) voxel features
        height, width = features.shape[-2:]
        projection = self._compute_projection((height * STRIDE, width * STRIDE), STRIDE)
        points = get_points(torch.tensor(self.n_voxels), torch.tensor(self.voxel_size), torch.tensor(self.origin))
        homogeneous = torch.cat([points.view(3, -1), torch.ones_like(points.view(3, -1)[:1])], dim=0)
        projected = projection[0] @ homogeneous
        depth = projected[2]
        x = projected[0] / depth
        y = projected[1] / depth
        grid = torch.stack([2.0 * x / (width - 1) - 1.0, 2.0 * y / (height - 1) - 1.0], dim=-1).view(1, 1, -1, 2)
        sampled = F.grid_sample(features, grid, align_corners=True)[:, :, 0]
        volume = sampled * (depth > 0).to(features.dtype)
        return volume.view(features.shape[0], features.shape[1], *self.n_voxels)


def build() -> nn.Module:
    return VoxelBackprojection().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 12, 16, generator=generator),)


DYNAMIC = {"features": {1: "channels", 2: "height", 3: "width"}}
