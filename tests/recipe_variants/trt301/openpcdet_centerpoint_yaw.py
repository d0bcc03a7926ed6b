"""A CenterPoint-style BEV box decoder reads each box's yaw with ``torch.atan2``: OpenPCDet.

Reduced from open-mmlab/OpenPCDet at commit 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/model_utils/centernet_utils.py, ``decode_bbox_from_pred_dicts`` (lines 357-385): the
head's two rotation channels (cos, sin) are each moved to ``(B, H*W, 1)`` and the yaw is
``torch.atan2(batch_rot_sin, batch_rot_cos)`` (line 367), concatenated with the box centre offsets.
Written here in our own words with the centre and rotation maps only (no sizes, velocities or the
voxel-grid scaling). A head regressing cos = -1, sin = 0 (a box facing backwards) is ordinary data.
"""

import torch
from torch import nn


class CenterYawDecoder(nn.Module):
    def forward(self, center, rot):
        batch_size, _, height, width = center.shape
        batch_center = center.permute(0, 2, 3, 1).contiguous().view(batch_size, height * width, 2)
        batch_rot_cos = rot[:, 0].unsqueeze(dim=1).permute(0, 2, 3, 1).contiguous().view(batch_size, height * width, 1)
        batch_rot_sin = rot[:, 1].unsqueeze(dim=1).permute(0, 2, 3, 1).contiguous().view(batch_size, height * width, 1)
        angle = torch.atan2(batch_rot_sin, batch_rot_cos)
        return torch.cat((batch_center, angle), dim=-1)


def build() -> nn.Module:
    return CenterYawDecoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 3, 4, generator=generator), torch.randn(2, 2, 3, 4, generator=generator))


DYNAMIC = {"center": {0: "batch", 2: "height", 3: "width"}, "rot": {0: "batch", 2: "height", 3: "width"}}
