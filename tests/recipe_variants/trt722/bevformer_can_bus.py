"""BEVFormer's test-time ego motion: before the CAN-bus signal of the frame is turned into a
delta from the previous frame in place, its position (a slice) and its heading (one element)
are deep-copied, to be kept as the next frame's "previous" values.

Reduced from fundamentalvision/BEVFormer @ 66b65f3a1f58caf0507cb2a971b9c0e7f842376c,
projects/mmdet3d_plugin/bevformer/detectors/bevformer.py:253-268 (``BEVFormer.forward_test``:
``tmp_pos = copy.deepcopy(img_metas[0][0]['can_bus'][:3])``, ``tmp_angle =
copy.deepcopy(img_metas[0][0]['can_bus'][-1])``, the in-place ``-=`` of the previous position and
heading, and the copies stored in ``prev_frame_info``), written here in our own words; the CAN
bus is a tensor (a NumPy array there), the previous frame's values are inputs, and the BEV
encoder is one linear layer fed with the delta.
"""

import copy

import torch
from torch import nn


class EgoMotion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Linear(4, 4)

    def forward(self, can_bus: torch.Tensor, prev_pos: torch.Tensor, prev_angle: torch.Tensor) -> torch.Tensor:
        can_bus = can_bus.clone()
        tmp_pos = copy.deepcopy(can_bus[:3])
        tmp_angle = copy.deepcopy(can_bus[-1])
        can_bus[:3] -= prev_pos
        can_bus[-1] -= prev_angle
        delta = self.encode(torch.cat([can_bus[:3], can_bus[-1:]]))
        return torch.cat([delta, tmp_pos, tmp_angle[None]])


def build() -> nn.Module:
    return EgoMotion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    can_bus = torch.randn(18, generator=generator)
    return can_bus, torch.randn(3, generator=generator), torch.randn(1, generator=generator)[0]


DYNAMIC: dict = {}
