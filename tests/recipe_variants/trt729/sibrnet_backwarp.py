"""A backward-warp table keyed by ``str(flow.size())`` beside other warps of the module: SIBRNet.

Reduced from Jonlysun/SIBRNet @ e64ef0c94bc09f09e3978dae5bcc9da9ea06f9dc, utils/warping.py
(``backwarp_tenGrid = {}``; ``backwarp``: ``if str(tenFlow.size()) not in backwarp_tenGrid:``, the
grid stored under that key and read back with the flow in pixels normalised), written here in our
own words; the model warps its input by a predicted flow and blends it with the input by a mask.
"""

import torch
from torch import nn

backwarp_tenGrid = {}


def backwarp(tenInput, tenFlow):
    if str(tenFlow.size()) not in backwarp_tenGrid:
        horizontal = torch.linspace(-1.0, 1.0, tenFlow.shape[3]).view(1, 1, 1, tenFlow.shape[3]).expand(
            tenFlow.shape[0], -1, tenFlow.shape[2], -1)
        vertical = torch.linspace(-1.0, 1.0, tenFlow.shape[2]).view(1, 1, tenFlow.shape[2], 1).expand(
            tenFlow.shape[0], -1, -1, tenFlow.shape[3])
        backwarp_tenGrid[str(tenFlow.size())] = torch.cat([horizontal, vertical], 1).type_as(tenFlow)
    tenFlow = torch.cat([tenFlow[:, 0:1] / ((tenInput.shape[3] - 1.0) / 2.0),
                         tenFlow[:, 1:2] / ((tenInput.shape[2] - 1.0) / 2.0)], 1)
    grid = (backwarp_tenGrid[str(tenFlow.size())] + tenFlow).permute(0, 2, 3, 1)
    return torch.nn.functional.grid_sample(input=tenInput, grid=grid, mode="bilinear", padding_mode="zeros")


class Blend(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, img):
        out = self.head(img)
        warped = backwarp(img, out[:, :2])
        mask = torch.sigmoid(out[:, 2:3])
        return warped * mask + img * (1 - mask)


def build() -> nn.Module:
    return Blend()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "b", 2: "h", 3: "w"}}
