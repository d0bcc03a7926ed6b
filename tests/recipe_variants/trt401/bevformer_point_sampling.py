"""BEVFormer's projection of pillar points into the cameras: two ``squeeze(-1)``.

Reduced from fundamentalvision/BEVFormer at commit 66b65f3a1f58caf0507cb2a971b9c0e7f842376c,
projects/mmdet3d_plugin/bevformer/modules/encoder.py, ``BEVFormerEncoder.point_sampling`` (lines
95-148): reference points in [0, 1] are scaled to the point-cloud range, made homogeneous, repeated
for every camera and multiplied by each camera's lidar-to-image matrix; the product's trailing
axis of 1 is dropped with ``squeeze(-1)`` on the ``matmul`` written over two lines (line 122-123);
the points in front of a camera and inside its image make a mask, which is permuted to (camera,
batch, query, depth, 1) and squeezed with ``bev_mask.permute(2, 1, 3, 0, 4).squeeze(-1)``
(line 144). Written here in our own words: the matrices are an input (the original builds them
from ``img_metas`` with NumPy), the image size is a constant, the ``nan_to_num`` of the boolean
mask is left out, and the mask multiplies the projected points to make one output.

Both squeezed axes have size 1 by construction (a trailing ``unsqueeze(-1)``, a slice ``2:3``).
The export sizes the ``matmul``'s (a plain Squeeze), not the mask's, which comes out of a chain of
comparisons on slices of dynamic tensors: the TorchScript exporter guards that squeeze with an ``If``.
"""

import torch
from torch import nn


class PointSampling(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pc_range = (-51.2, -51.2, -5.0, 51.2, 51.2, 3.0)
        self.image_size = (48.0, 64.0)

    def forward(self, reference_points, lidar2img):
        pc_range = self.pc_range
        reference_points = reference_points.clone()
        reference_points[..., 0:1] = reference_points[..., 0:1] * (pc_range[3] - pc_range[0]) + pc_range[0]
        reference_points[..., 1:2] = reference_points[..., 1:2] * (pc_range[4] - pc_range[1]) + pc_range[1]
        reference_points[..., 2:3] = reference_points[..., 2:3] * (pc_range[5] - pc_range[2]) + pc_range[2]
        reference_points = torch.cat((reference_points, torch.ones_like(reference_points[..., :1])), -1)
        reference_points = reference_points.permute(1, 0, 2, 3)
        depth, batch, num_query = reference_points.size()[:3]
        num_cam = lidar2img.size(1)
        reference_points = reference_points.view(depth, batch, 1, num_query, 4).repeat(
            1, 1, num_cam, 1, 1).unsqueeze(-1)
        lidar2img = lidar2img.view(1, batch, num_cam, 1, 4, 4).repeat(depth, 1, 1, num_query, 1, 1)
        reference_points_cam = torch.matmul(lidar2img.to(torch.float32),
                                            reference_points.to(torch.float32)).squeeze(-1)
        eps = 1e-5
        bev_mask = reference_points_cam[..., 2:3] > eps
        reference_points_cam = reference_points_cam[..., 0:2] / torch.maximum(
            reference_points_cam[..., 2:3], torch.ones_like(reference_points_cam[..., 2:3]) * eps)
        reference_points_cam = reference_points_cam / reference_points_cam.new_tensor(
            [self.image_size[1], self.image_size[0]])
        bev_mask = (bev_mask & (reference_points_cam[..., 1:2] > 0.0) & (reference_points_cam[..., 1:2] < 1.0)
                    & (reference_points_cam[..., 0:1] < 1.0) & (reference_points_cam[..., 0:1] > 0.0))
        reference_points_cam = reference_points_cam.permute(2, 1, 3, 0, 4)
        bev_mask = bev_mask.permute(2, 1, 3, 0, 4).squeeze(-1)
        return reference_points_cam * bev_mask[..., None]


def build() -> nn.Module:
    return PointSampling()


def _cameras(batch: int, cameras: int, generator: torch.Generator) -> torch.Tensor:
    """Lidar-to-image matrices that put part of the pillar points in front of each camera."""
    intrinsic = torch.tensor([[32.0, 0.0, 32.0, 0.0], [0.0, 32.0, 24.0, 0.0], [0.0, 0.0, 1.0, 0.0],
                              [0.0, 0.0, 0.0, 1.0]])
    axes = torch.tensor([[0.0, -1.0, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    jitter = 0.05 * torch.randn(batch, cameras, 4, 4, generator=generator)
    jitter[..., 3, :] = 0.0
    return intrinsic @ axes + jitter


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 4, 6, 3, generator=generator), _cameras(2, 3, generator))


DYNAMIC = {"reference_points": {0: "batch", 1: "depth", 2: "queries"}, "lidar2img": {0: "batch", 1: "cameras"}}
