"""Voxel R-CNN's RoI-grid pooling: the voxel cell of every grid point of every box, at each stride.

Reduced from open-mmlab/OpenPCDet at commit 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/roi_heads/voxelrcnn_head.py, ``VoxelRCNNHead.roi_grid_pool`` (lines 106-191: the
voxel coordinates at lines 130-132, ``roi_grid_coords // cur_stride`` at line 169),
``get_global_grid_points_of_roi`` and ``get_dense_grid_points`` (lines 194-215), and
pcdet/utils/common_utils.py, ``rotate_points_along_z`` (lines 35-57). Each box ``(x, y, z, dx,
dy, dz, heading)`` gets a ``G x G x G`` grid of points in its own frame, turned by its heading and
moved to its centre; each point's voxel cell is ``(xyz - point_cloud_range[i]) //
voxel_size[i]``, a float tensor floor-divided by a Python float, then ``// cur_stride`` for each
feature scale, with the batch index in front and ``.int()``. A box near the edge of the range
has grid points outside it, whose cells are negative: there torch floors (-0.3 m is cell -1) and
the TorchScript export truncates (cell 0, or -0 at the coarser strides). Written here in our own
words; the sparse-convolution pooling layer the coordinates feed is left out (the coordinates
are the output), the dense grid is built with ``meshgrid`` instead of ``nonzero`` of a ones
volume, and the batch index with ``arange`` instead of a loop over the batch.
"""

import torch
from torch import nn


def rotate_points_along_z(points, angle):
    cosa, sina = torch.cos(angle), torch.sin(angle)
    zeros, ones = torch.zeros_like(angle), torch.ones_like(angle)
    rot = torch.stack((cosa, sina, zeros, -sina, cosa, zeros, zeros, zeros, ones), dim=1).view(-1, 3, 3)
    return torch.matmul(points[:, :, 0:3], rot)


class VoxelRCNNGridCoords(nn.Module):
    def __init__(self, grid_size=3, strides=(1, 2, 4)) -> None:
        super().__init__()
        # KITTI's range and voxel size, as in OpenPCDet's voxel_rcnn_car.yaml.
        self.point_cloud_range = [0.0, -40.0, -3.0, 70.4, 40.0, 1.0]
        self.voxel_size = [0.05, 0.05, 0.1]
        self.grid_size = grid_size
        self.strides = strides

    def get_dense_grid_points(self, rois, batch_size_rcnn, grid_size):
        axis = torch.arange(grid_size, device=rois.device, dtype=rois.dtype)
        dense_idx = torch.stack(torch.meshgrid(axis, axis, axis, indexing="ij"), dim=-1).view(1, -1, 3)
        local_roi_size = rois.view(batch_size_rcnn, -1)[:, 3:6]
        return (dense_idx + 0.5) / grid_size * local_roi_size.unsqueeze(dim=1) - local_roi_size.unsqueeze(dim=1) / 2

    def get_global_grid_points_of_roi(self, rois, grid_size):
        rois = rois.view(-1, rois.shape[-1])
        batch_size_rcnn = rois.shape[0]
        local = self.get_dense_grid_points(rois, batch_size_rcnn, grid_size)
        global_points = rotate_points_along_z(local.clone(), rois[:, 6])
        return global_points + rois[:, 0:3].unsqueeze(dim=1)

    def forward(self, rois):
        batch_size = rois.shape[0]
        roi_grid_xyz = self.get_global_grid_points_of_roi(rois, grid_size=self.grid_size)
        roi_grid_xyz = roi_grid_xyz.view(batch_size, -1, 3)

        roi_grid_coords_x = (roi_grid_xyz[:, :, 0:1] - self.point_cloud_range[0]) // self.voxel_size[0]
        roi_grid_coords_y = (roi_grid_xyz[:, :, 1:2] - self.point_cloud_range[1]) // self.voxel_size[1]
        roi_grid_coords_z = (roi_grid_xyz[:, :, 2:3] - self.point_cloud_range[2]) // self.voxel_size[2]
        roi_grid_coords = torch.cat([roi_grid_coords_x, roi_grid_coords_y, roi_grid_coords_z], dim=-1)

        batch_idx = torch.arange(batch_size, dtype=rois.dtype, device=rois.device).view(-1, 1, 1)
        batch_idx = batch_idx.expand(-1, roi_grid_coords.shape[1], 1)
        per_scale = []
        for cur_stride in self.strides:
            cur_roi_grid_coords = roi_grid_coords // cur_stride
            cur_roi_grid_coords = torch.cat([batch_idx, cur_roi_grid_coords], dim=-1)
            per_scale.append(cur_roi_grid_coords.int())
        return torch.stack(per_scale)


def build() -> nn.Module:
    return VoxelRCNNGridCoords().eval()


def boxes(generator: torch.Generator, batch: int, count: int, spread: float = 1.0) -> torch.Tensor:
    """Boxes whose centres lie near the range's x = 0 and y = -40 edges (some grid points fall
    outside it, at negative cells), car-sized, with any heading."""
    centre = torch.stack([torch.rand(batch, count, generator=generator) * 3 * spread - 0.5,
                          torch.rand(batch, count, generator=generator) * 3 * spread - 40.5,
                          torch.rand(batch, count, generator=generator) * 3 - 3.5], dim=-1)
    size = torch.stack([3.2 + torch.rand(batch, count, generator=generator),
                        1.6 + torch.rand(batch, count, generator=generator) * 0.2,
                        1.5 + torch.rand(batch, count, generator=generator) * 0.2], dim=-1)
    heading = (torch.rand(batch, count, 1, generator=generator) * 2 - 1) * torch.pi
    return torch.cat([centre, size, heading], dim=-1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (boxes(generator, 2, 5),)


DYNAMIC = {"rois": {0: "batch", 1: "boxes"}}
