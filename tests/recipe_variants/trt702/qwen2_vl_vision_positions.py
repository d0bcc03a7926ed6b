"""Qwen2-VL's 3-D rotary position ids of an image: the grid's frame, row and column counts read
out of ``grid_thw`` with ``.item()``, floor-divided by the merge sizes, and spanned with ``arange``.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/qwen2_vl/modeling_qwen2_vl.py:843-893 (``get_vision_position_ids``, the same
lines in Qwen2.5-VL, Qwen3-VL, GLM-4V and six more models): ``grid_thw[0].item() //
temp_merge_size`` and the same for the height and width, ``torch.arange`` of each (the temporal one
times ``time_interval``, cast to long), a meshgrid stacked into ``(3, T*H*W)`` ids and the start
position added. Written here in our own words as a module whose input is the grid; the start
position and the merge sizes are fixed numbers.
"""

import torch
from torch import nn


class VisionPositions(nn.Module):
    def __init__(self, temp_merge_size: int = 1, spatial_merge_size: int = 2, start_position: int = 3) -> None:
        super().__init__()
        self.temp_merge_size = temp_merge_size
        self.spatial_merge_size = spatial_merge_size
        self.start_position = start_position
        self.time_interval = 2.0

    def forward(self, grid_thw: torch.Tensor) -> torch.Tensor:
        grid_t, grid_h, grid_w = (
            grid_thw[0].item() // self.temp_merge_size,
            grid_thw[1].item() // self.spatial_merge_size,
            grid_thw[2].item() // self.spatial_merge_size,
        )
        temporal = (torch.arange(grid_t, device=grid_thw.device) * self.time_interval).long()
        height = torch.arange(grid_h, device=grid_thw.device) + self.start_position
        width = torch.arange(grid_w, device=grid_thw.device) + self.start_position
        t_grid, h_grid, w_grid = torch.meshgrid(temporal, height, width, indexing="ij")
        positions = torch.stack([t_grid, h_grid, w_grid], dim=0).reshape(3, -1)
        positions[0] += self.start_position
        return positions


def build() -> nn.Module:
    return VisionPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.tensor([2, 4, 6]),)


DYNAMIC: dict = {}
