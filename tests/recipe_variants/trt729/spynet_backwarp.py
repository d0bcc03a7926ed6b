"""The backward-warp grid table keyed inline by the flow's size: sniklaus' SPyNet.

Reduced from sniklaus/pytorch-spynet @ e3b6b3c31fb048c43c837b45f72601b75cbc6192, run.py:36-47
(``backwarp_tenGrid = {}``; ``if str(tenFlow.size()) not in backwarp_tenGrid:`` and the write
under the same key; ``padding_mode='border'``), written here in our own words; SPyNet warps the
second frame by its upsampled flow at each level, here one level.
"""

import torch
from torch import nn

backwarp_grid = {}


def backwarp(frame, flow):
    if str(flow.size()) not in backwarp_grid:
        horizontal = torch.linspace(-1.0, 1.0, flow.shape[3]).view(1, 1, 1, flow.shape[3]).expand(
            flow.shape[0], -1, flow.shape[2], -1)
        vertical = torch.linspace(-1.0, 1.0, flow.shape[2]).view(1, 1, flow.shape[2], 1).expand(
            flow.shape[0], -1, -1, flow.shape[3])
        backwarp_grid[str(flow.size())] = torch.cat([horizontal, vertical], 1)
    flow = torch.cat([flow[:, 0:1] / ((frame.shape[3] - 1.0) / 2.0), flow[:, 1:2] / ((frame.shape[2] - 1.0) / 2.0)], 1)
    return torch.nn.functional.grid_sample(frame, (backwarp_grid[str(flow.size())] + flow).permute(0, 2, 3, 1),
                                           mode="bilinear", padding_mode="border", align_corners=True)


class Level(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.basic = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 2, 3, padding=1))

    def forward(self, first, second):
        flow = torch.zeros_like(first[:, :2])
        return self.basic(torch.cat([first, backwarp(second, flow + 0.1), flow], 1)) + flow


def build() -> nn.Module:
    return Level()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 6, 8, generator=generator), torch.rand(1, 3, 6, 8, generator=generator))


DYNAMIC = {"first": {0: "b", 2: "h", 3: "w"}, "second": {0: "b", 2: "h", 3: "w"}}
