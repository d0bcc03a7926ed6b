"""OpenPCDet's MPPNet head: the current frame's proposals are deep-copied out of the batch dict (detached,
then indexed) and rolled through the earlier frames by their velocity to make proposal trajectories.

Reduced from open-mmlab/OpenPCDet @ 8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/roi_heads/mppnet_head.py: ``MPPNetHead.forward`` (lines 661-799; 667-680: ``batch_dict['rois'] =
batch_dict['proposals_list'].permute(0,2,1,3)``, ``cur_batch_boxes =
copy.deepcopy(batch_dict['rois'].detach())[:,:,0]`` at line 674) and ``generate_trajectory`` (lines
635-659: the boxes repeated over the frames, each frame's centre moved by the previous one's velocity,
``frame[:,:,0:2] = trajectory_rois[:,i-1,:,0:2] + trajectory_rois[:,i-1,:,7:9]``). ``MPPNetHead``'s base,
``RoIHeadTemplate(nn.Module)``, lives in roi_head_template.py; here it is in the same file. Written here in
our own words: the IoU matching against each frame's proposals (a CUDA op) is left out, and a small
linear scorer over the trajectories stands for the head's transformer.
"""

import copy

import torch
from torch import nn


class RoIHeadTemplate(nn.Module):
    def __init__(self, code_size: int = 9) -> None:
        super().__init__()
        self.code_size = code_size


class TrajectoryHead(RoIHeadTemplate):
    def __init__(self, frames: int = 3) -> None:
        super().__init__()
        self.score = nn.Linear(frames * self.code_size, 1)

    def roll_trajectory(self, cur_batch_boxes, batch_dict):
        frames = batch_dict['rois'].shape[-2]
        trajectory = cur_batch_boxes[:, None].repeat(1, frames, 1, 1)
        for i in range(1, frames):
            moved = torch.zeros_like(cur_batch_boxes)
            moved[:, :, 0:2] = trajectory[:, i - 1, :, 0:2] + trajectory[:, i - 1, :, 7:9]
            moved[:, :, 2:] = trajectory[:, i - 1, :, 2:]
            trajectory[:, i] = moved
        return trajectory

    def forward(self, proposals_list):
        batch_dict = {'proposals_list': proposals_list}
        batch_dict['rois'] = batch_dict['proposals_list'].permute(0, 2, 1, 3)
        cur_batch_boxes = copy.deepcopy(batch_dict['rois'].detach())[:, :, 0]
        trajectory = self.roll_trajectory(cur_batch_boxes, batch_dict)
        rois = trajectory.permute(0, 2, 1, 3).flatten(2)
        return torch.cat([rois, self.score(rois)], dim=-1)


def build() -> nn.Module:
    return TrajectoryHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # (batch, frames, proposals, box code): x, y, z, dx, dy, dz, heading, vx, vy
    return (torch.randn(2, 3, 4, 9, generator=generator),)


DYNAMIC = {"proposals_list": {0: "batch", 2: "proposals"}}
