"""ImVoxelNet's camera projection with the pitch and roll its 2-D head predicts: the intrinsic matrix
made a tensor in the forward pass from the image's metadata and scaled in place to the stride,
the extrinsic built from the predicted angles.

Reduced from SamsungLabs/imvoxelnet at commit 655094d44d7c63af79564bab4e62270ac181838f,
mmdet3d/models/detectors/imvoxelnet.py: ``ImVoxelNet._compute_projection`` (lines 114-129) makes the
3 x 3 intrinsic a tensor with ``torch.tensor`` of the metadata's array and divides its first two rows
in place, ``intrinsic[:2] /= ratio``; with predicted angles (SUN RGB-D total, lines 59-61) each
extrinsic comes from ``get_extrinsics`` (lines 164-187: a rotation from pitch and roll, entry by
entry, turned by a fixed axis permutation), and the projection is their product; ``backproject``
then reads the feature map at the projected voxel centres. Written here in our own words: one
image, its intrinsic a NumPy array of the module, the feature map's size giving the image size
(stride 4), a translation of 2 along the camera axis for the scene (its voxel origin there), and
the voxel centres read with ``grid_sample`` (zeros outside and behind the camera)
instead of the boolean-mask copy.
"""

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

STRIDE = 4
ORIGINAL_HEIGHT = 120


def get_extrinsics(angles: torch.Tensor) -> torch.Tensor:
    yaw = angles.new_zeros(())
    pitch, roll = angles
    r = angles.new_zeros((3, 3))
    r[0, 0] = torch.cos(yaw) * torch.cos(pitch)
    r[0, 1] = torch.sin(yaw) * torch.sin(roll) - torch.cos(yaw) * torch.cos(roll) * torch.sin(pitch)
    r[0, 2] = torch.cos(roll) * torch.sin(yaw) + torch.cos(yaw) * torch.sin(pitch) * torch.sin(roll)
    r[1, 0] = torch.sin(pitch)
    r[1, 1] = torch.cos(pitch) * torch.cos(roll)
    r[1, 2] = -torch.cos(pitch) * torch.sin(roll)
    r[2, 0] = -torch.cos(pitch) * torch.sin(yaw)
    r[2, 1] = torch.cos(yaw) * torch.sin(roll) + torch.cos(roll) * torch.sin(yaw) * torch.sin(pitch)
    r[2, 2] = torch.cos(yaw) * torch.cos(roll) - torch.sin(yaw) * torch.sin(pitch) * torch.sin(roll)
    axes = angles.new_tensor([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [-1.0, 0.0, 0.0]])
    r = (axes @ r.T)[:, [2, 0, 1]]
    r[2] *= -1
    extrinsic = angles.new_zeros((4, 4))
    extrinsic[:3, :3] = r
    extrinsic[:3, 3] = angles.new_tensor([0.0, 0.0, 2.0])
    extrinsic[3, 3] = 1.0
    return extrinsic


class AngleBackprojection(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.intrinsic = np.array([[70.0, 0.0, 60.0], [0.0, 70.0, 60.0], [0.0, 0.0, 1.0]], dtype=np.float32)
        corner = torch.tensor([-0.8, -0.6, -0.5])
        grid = torch.stack(torch.meshgrid(torch.arange(4.0), torch.arange(3.0), torch.arange(2.0), indexing="ij"))
        self.register_buffer("points", grid.view(3, -1) * 0.4 + corner.view(3, 1))

    def _compute_projection(self, img_shape: tuple, stride: int, angles: torch.Tensor) -> torch.Tensor:
        projection = []
        intrinsic = torch.tensor(self.intrinsic[:3, :3])
        ratio = ORIGINAL_HEIGHT / (img_shape[0] / stride)
        intrinsic[:2] /= ratio
        extrinsics = [get_extrinsics(angle) for angle in angles]
        for extrinsic in extrinsics:
            projection.append(intrinsic @ extrinsic[:3])
        return torch.stack(projection)

    def forward(self, features: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
        # features: (1, C, H, W); angles: (1, 2) predicted pitch and roll -> (1, C, voxels)
        height, width = features.shape[-2:]
        projection = self._compute_projection((height * STRIDE, width * STRIDE), STRIDE, angles)
        homogeneous = torch.cat([self.points, torch.ones_like(self.points[:1])], dim=0)
        projected = projection[0] @ homogeneous
        depth = projected[2]
        grid = torch.stack([2.0 * projected[0] / depth / (width - 1) - 1.0,
                            2.0 * projected[1] / depth / (height - 1) - 1.0], dim=-1).view(1, 1, -1, 2)
        sampled = F.grid_sample(features, grid, align_corners=True)[:, :, 0]
        return sampled * (depth > 0).to(features.dtype)


def build() -> nn.Module:
    return AngleBackprojection().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 3, 15, 20, generator=generator), torch.rand(1, 2, generator=generator) * 0.4 - 0.2


DYNAMIC = {"features": {1: "channels", 2: "height", 3: "width"}}
