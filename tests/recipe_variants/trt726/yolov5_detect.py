"""A shape-keyed cache: YOLOv5's ``Detect`` rebuilds its cell and anchor grids when a level's size changes.

Reduced from ultralytics/yolov5 @ 5081342f04fb287fc2e5f2b5a4e06752b7937b1c, models/yolo.py:91-131
(``if self.dynamic or self.grid[i].shape[2:4] != x[i].shape[2:4]:`` then
``self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)``), written here in our own words
for two levels, one anchor and two outputs per cell.
"""

import torch
from torch import nn


class Detect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nl = 2
        self.na = 1
        self.no = 4
        self.dynamic = False
        self.stride = torch.tensor([1.0, 2.0])
        self.anchors = torch.tensor([[[1.5, 2.0]], [[3.0, 2.5]]])
        self.grid = [torch.empty(0) for _ in range(self.nl)]
        self.anchor_grid = [torch.empty(0) for _ in range(self.nl)]
        self.m = nn.ModuleList(nn.Conv2d(3, self.na * self.no, 1, stride=s) for s in (1, 2))

    def _make_grid(self, nx, ny, i):
        shape = 1, self.na, ny, nx, 2
        y, x = torch.arange(ny, dtype=torch.float32), torch.arange(nx, dtype=torch.float32)
        yv, xv = torch.meshgrid(y, x, indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid

    def forward(self, img):
        z = []
        for i in range(self.nl):
            x = self.m[i](img)
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if self.dynamic or self.grid[i].shape[2:4] != x.shape[2:4]:
                self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
            xy, wh = x.sigmoid().split((2, 2), 4)
            xy = (xy * 2 + self.grid[i]) * self.stride[i]
            wh = (wh * 2) ** 2 * self.anchor_grid[i]
            z.append(torch.cat((xy, wh), 4).view(bs, self.na * nx * ny, self.no))
        return torch.cat(z, 1)


def build() -> nn.Module:
    return Detect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
