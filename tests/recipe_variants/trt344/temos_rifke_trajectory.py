"""TEMOS's rotation-invariant motion features: the root's trajectory taken off the joints and put back.

Reduced from Mathux/TEMOS@eafa06dae666aa32dd9e5678a8958050283f9dcb
temos/transforms/joints2jfeats/rifke.py:25-120, ``Rifke``: ``forward`` lowers the poses to the floor,
takes the root's ground trajectory ``translation[..., [0, 2]]``, drops the root joint and removes the
trajectory from the other joints' x and z with ``poses[..., [0, 2]] -= trajectory[..., None, :]`` (line
44), then rotates them into the facing direction and stacks the features; ``inverse`` rebuilds the
joints from the features, integrates the trajectory and adds it back with ``poses[..., [0, 2]] +=
trajectory[..., None, :]`` (line 119). The floor and the facing direction follow
temos/transforms/joints2jfeats/tools.py (``get_floor``: a soft minimum of the feet's heights over the
frames; ``get_forward_direction``: hips and shoulders). Here seven joints, the hard minimum for the
floor, ``torch.diff`` (which another of this project's rules rewrites) written as the difference of two slices, and
one linear layer between the two stands in for the motion model. Written here in our own words.
"""

import torch
from torch import nn

ROOT, LEFT_HIP, RIGHT_HIP, LEFT_SHOULDER, RIGHT_SHOULDER, LEFT_FOOT, RIGHT_FOOT = range(7)


def forward_direction(poses):
    across = poses[..., RIGHT_HIP - 1, :] - poses[..., LEFT_HIP - 1, :]
    across = across + poses[..., RIGHT_SHOULDER - 1, :] - poses[..., LEFT_SHOULDER - 1, :]
    facing = torch.stack((-across[..., 2], across[..., 0]), dim=-1)
    return torch.nn.functional.normalize(facing, dim=-1)


def rotation(cos, sin, inverse: bool):
    sin = -sin if inverse else sin
    return torch.stack((torch.stack((cos, -sin), -1), torch.stack((sin, cos), -1)), -2)


class Rifke(nn.Module):
    def __init__(self, joints: int = 7) -> None:
        super().__init__()
        width = 1 + 3 * (joints - 1) + 1 + 2
        self.motion = nn.Linear(width, width)

    def features(self, joints):
        poses = joints.clone()
        floor = poses[..., (LEFT_FOOT, RIGHT_FOOT), 1].amin(-1).amin(-1)
        poses[..., 1] -= floor[:, None, None]
        translation = poses[..., 0, :].clone()
        root_y = translation[..., 1]
        trajectory = translation[..., [0, 2]]
        poses = poses[..., 1:, :]
        poses[..., [0, 2]] -= trajectory[..., None, :]
        vel_trajectory = trajectory[..., 1:, :] - trajectory[..., :-1, :]
        vel_trajectory = torch.cat((0 * vel_trajectory[..., [0], :], vel_trajectory), dim=-2)
        facing = forward_direction(poses)
        angles = torch.atan2(facing[..., 0], facing[..., 1])
        vel_angles = angles[..., 1:] - angles[..., :-1]
        vel_angles = torch.cat((0 * vel_angles[..., [0]], vel_angles), dim=-1)
        rotations_inv = rotation(facing[..., 1], facing[..., 0], inverse=True)
        local = torch.einsum("...lj,...jk->...lk", poses[..., [0, 2]], rotations_inv)
        local = torch.stack((local[..., 0], poses[..., 1], local[..., 1]), dim=-1).flatten(-2)
        vel_local = torch.einsum("...j,...jk->...k", vel_trajectory, rotations_inv)
        return torch.cat((root_y[..., None], local, vel_angles[..., None], vel_local), -1)

    def inverse(self, features):
        root_y, local, vel_angles, vel_local = features[..., 0], features[..., 1:-3], features[..., -3], features[..., -2:]
        angles = torch.cumsum(vel_angles, dim=-1)
        angles = angles - angles[..., [0]]
        rotations = rotation(torch.cos(angles), torch.sin(angles), inverse=False)
        local = local.reshape(local.shape[:-1] + (-1, 3))
        poses = torch.einsum("...lj,...jk->...lk", local[..., [0, 2]], rotations)
        poses = torch.stack((poses[..., 0], local[..., 1], poses[..., 1]), dim=-1)
        vel_trajectory = torch.einsum("...j,...jk->...k", vel_local, rotations)
        trajectory = torch.cumsum(vel_trajectory, dim=-2)
        trajectory = trajectory - trajectory[..., [0], :]
        poses = torch.cat((0 * poses[..., [0], :], poses), -2)
        poses[..., 0, 1] = root_y
        poses[..., [0, 2]] += trajectory[..., None, :]
        return poses

    def forward(self, joints):
        return self.inverse(self.motion(self.features(joints)))


def build() -> nn.Module:
    return Rifke().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 7, 3, generator=generator),)


DYNAMIC = {"joints": {0: "batch", 1: "frames"}}
