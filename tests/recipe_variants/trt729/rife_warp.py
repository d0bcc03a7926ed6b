"""A module-level table of warp grids keyed by the flow's device and size: RIFE's backward warp.

Reduced from hzwer/ECCV2022-RIFE @ 20d6abefb86d17acddbe335b9c9ad57057c6d46c, model/warplayer.py:5-17
(``backwarp_tenGrid = {}``; ``k = (str(tenFlow.device), str(tenFlow.size()))``; ``if k not in
backwarp_tenGrid:`` fills it; ``grid_sample`` of ``backwarp_tenGrid[k] + flow``), written here in
our own words around a small flow network (the key alias read before the ``if``).
"""

import torch
from torch import nn

grids = {}


def warp(image, flow):
    key = (str(flow.device), str(flow.size()))
    if key not in grids:
        across = torch.linspace(-1.0, 1.0, flow.shape[3]).view(1, 1, 1, flow.shape[3]).expand(
            flow.shape[0], -1, flow.shape[2], -1)
        down = torch.linspace(-1.0, 1.0, flow.shape[2]).view(1, 1, flow.shape[2], 1).expand(
            flow.shape[0], -1, -1, flow.shape[3])
        grids[key] = torch.cat([across, down], 1)
    flow = torch.cat([flow[:, 0:1] / ((image.shape[3] - 1.0) / 2.0), flow[:, 1:2] / ((image.shape[2] - 1.0) / 2.0)], 1)
    g = (grids[key] + flow).permute(0, 2, 3, 1)
    return torch.nn.functional.grid_sample(image, torch.clamp(g, -1, 1), mode="bilinear", padding_mode="zeros",
                                           align_corners=True)


class Warp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flow = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, img):
        return warp(img, self.flow(img))


def build() -> nn.Module:
    return Warp()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {0: "b", 2: "h", 3: "w"}}
