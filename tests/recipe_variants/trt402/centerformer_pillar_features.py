"""CenterFormer's pillar feature decorations: three unsqueezes, one with a computed axis.

Reduced from TuSimple/centerformer at commit 5a949b88ed7bb15aafb39bf78c95f1452063ebea,
det3d/models/readers/pillar_encoder.py, ``PillarFeatureNet.forward`` (lines 113-148), and
``get_paddings_indicator`` in det3d/models/utils/misc.py (lines 180-200): each pillar's points are
decorated with their offset from the pillar's mean and from the pillar's centre, whose grid
coordinate is converted and given a point axis on a call's result
(``coors[:, 3].to(dtype).unsqueeze(1)``); the padded points are masked with a comparison of each
pillar's count, given an axis with a computed position (``torch.unsqueeze(actual_num, axis + 1)``),
against the point positions, and the mask gets a feature axis with the function form
(``torch.unsqueeze(mask, -1)``) before it multiplies the features in place. Written here in our own
words with one PFN layer (a linear projection, ReLU and max over the points) after the decorations.

The computed axis (``axis + 1``) is not a literal: the rule leaves it as written.
"""

import torch
from torch import nn


def get_paddings_indicator(actual_num, max_num, axis=0):
    """Which of ``max_num`` padded slots hold a point, given each row's count ``actual_num``."""
    actual_num = torch.unsqueeze(actual_num, axis + 1)
    max_num_shape = [1] * len(actual_num.shape)
    max_num_shape[axis + 1] = -1
    max_num = torch.arange(max_num, dtype=torch.int, device=actual_num.device).view(max_num_shape)
    return actual_num.int() > max_num


class PillarDecorations(nn.Module):
    def __init__(self, voxel_size=(0.2, 0.2, 8.0), pc_range=(-51.2, -51.2, -5.0), out_channels: int = 6) -> None:
        super().__init__()
        self.vx, self.vy = voxel_size[0], voxel_size[1]
        self.x_offset = self.vx / 2 + pc_range[0]
        self.y_offset = self.vy / 2 + pc_range[1]
        self.linear = nn.Linear(9, out_channels)

    def forward(self, features, num_voxels, coors):
        dtype = features.dtype
        points_mean = features[:, :, :3].sum(dim=1, keepdim=True) / num_voxels.type_as(features).view(-1, 1, 1)
        f_cluster = features[:, :, :3] - points_mean
        f_center = torch.zeros_like(features[:, :, :2])
        f_center[:, :, 0] = features[:, :, 0] - (coors[:, 3].to(dtype).unsqueeze(1) * self.vx + self.x_offset)
        f_center[:, :, 1] = features[:, :, 1] - (coors[:, 2].to(dtype).unsqueeze(1) * self.vy + self.y_offset)
        features = torch.cat([features, f_cluster, f_center], dim=-1)
        voxel_count = features.shape[1]
        mask = get_paddings_indicator(num_voxels, voxel_count, axis=0)
        mask = torch.unsqueeze(mask, -1).type_as(features)
        features *= mask
        return torch.relu(self.linear(features)).max(dim=1)[0]


def build() -> nn.Module:
    return PillarDecorations()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    features = torch.randn(5, 4, 4, generator=generator)
    num_voxels = torch.randint(1, 5, (5,), generator=generator)
    coors = torch.cat([torch.zeros(5, 2, dtype=torch.long), torch.randint(0, 512, (5, 2), generator=generator)], 1)
    return (features, num_voxels, coors)


DYNAMIC = {"features": {0: "pillars", 1: "points"}, "num_voxels": {0: "pillars"}, "coors": {0: "pillars"}}
