"""BEVFormer v2's alignment of the previous BEV map: ``grid_shift.unsqueeze(0).unsqueeze(-1)``.

Reduced from fundamentalvision/BEVFormer at commit 66b65f3a1f58caf0507cb2a971b9c0e7f842376c,
projects/mmdet3d_plugin/bevformer/modules/transformerV2.py, ``PerceptionTransformerV2.get_bev_features``
(lines 147-169): when the frame was augmented by a BEV rotation, the previous BEV map is resampled
on a grid of cell centres in [-1, 1] that gets a batch axis and a trailing column axis in one chain
(``grid_shift.unsqueeze(0).unsqueeze(-1)``, line 159), is multiplied by the rotation's 2x2 block
repeated over the grid, and loses the column axis again (``squeeze(-1)``) before ``grid_sample``.
Written here in our own words; the map's size is the module's configuration, and the rotation
matrix an input (the original reads it from ``img_metas``). The grid has a batch of one, as in the
original, so the map's batch is 1.
"""

import torch
import torch.nn.functional as F
from torch import nn


class BevRotation(nn.Module):
    def __init__(self, bev_h: int = 6, bev_w: int = 8) -> None:
        super().__init__()
        self.bev_h, self.bev_w = bev_h, bev_w

    def forward(self, prev_bev, bda_mat):
        bev_h, bev_w = self.bev_h, self.bev_w
        bs = prev_bev.shape[0]
        prev_bev = prev_bev.reshape(bs, bev_h, bev_w, -1).permute(0, 3, 1, 2)
        ref_y, ref_x = torch.meshgrid(
            torch.linspace(0.5, bev_h - 0.5, bev_h, dtype=prev_bev.dtype, device=prev_bev.device),
            torch.linspace(0.5, bev_w - 0.5, bev_w, dtype=prev_bev.dtype, device=prev_bev.device), indexing="ij")
        grid = torch.stack((ref_x / bev_w, ref_y / bev_h), -1)
        grid_shift = grid * 2.0 - 1.0
        grid_shift = grid_shift.unsqueeze(0).unsqueeze(-1)
        bda_mat = bda_mat[:2, :2].to(grid_shift).view(1, 1, 1, 2, 2).repeat(
            grid_shift.shape[0], grid_shift.shape[1], grid_shift.shape[2], 1, 1)
        grid_shift = torch.matmul(bda_mat, grid_shift).squeeze(-1)
        prev_bev = F.grid_sample(prev_bev, grid_shift, align_corners=False)
        return prev_bev.reshape(bs, -1, bev_h * bev_w).permute(0, 2, 1)


def build() -> nn.Module:
    return BevRotation()


def rotation(angle: float) -> torch.Tensor:
    """A BEV augmentation matrix rotating by ``angle`` radians about the vertical axis."""
    c, s = torch.cos(torch.tensor(angle)), torch.sin(torch.tensor(angle))
    return torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 48, 4, generator=generator), rotation(0.3))


DYNAMIC = {"prev_bev": {2: "channels"}}
