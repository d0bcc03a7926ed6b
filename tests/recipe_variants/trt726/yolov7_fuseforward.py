"""A shape-keyed cache in the method a fuse step installs as forward: YOLOv7's ``IDetect.fuseforward``.

Reduced from WongKinYiu/yolov7 @ a207844b1ce82d204ab36d87d496728d3d2348e7, models/yolo.py: ``IDetect``
(lines 97-205) has ``forward`` and ``fuseforward``, each rebuilding the cell grid under
``if self.grid[i].shape[2:4] != x[i].shape[2:4]:`` (lines 130 and 150), and ``Model.fuse`` (lines
695-712), which ``attempt_load`` runs on every checkpoint it loads, installs the second one as the
head's forward: ``m.forward = m.fuseforward``. Written here in our own words for two levels, one
anchor and no implicit layers.
"""

import torch
from torch import nn


class IDetect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nl = 2
        self.na = 1
        self.no = 4
        self.stride = torch.tensor([1.0, 2.0])
        self.grid = [torch.zeros(1)] * self.nl
        self.anchor_grid = torch.tensor([[1.5, 2.0], [6.0, 5.0]]).view(self.nl, 1, self.na, 1, 1, 2)
        self.m = nn.ModuleList(nn.Conv2d(3, self.na * self.no, 1, stride=s) for s in (1, 2))

    @staticmethod
    def _make_grid(nx=20, ny=20):
        yv, xv = torch.meshgrid([torch.arange(ny), torch.arange(nx)], indexing="ij")
        return torch.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()

    def _level(self, i, img):
        x = self.m[i](img)
        bs, _, ny, nx = x.shape
        return x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()

    def forward(self, img):
        z = []
        for i in range(self.nl):
            x = self._level(i, img)
            if self.grid[i].shape[2:4] != x.shape[2:4]:
                self.grid[i] = self._make_grid(x.shape[3], x.shape[2]).to(x.device)
            z.append((x.sigmoid() + self.grid[i].repeat(1, 1, 1, 1, 2)).view(x.shape[0], -1, self.no))
        return torch.cat(z, 1)

    def fuseforward(self, img):
        z = []
        for i in range(self.nl):
            x = self._level(i, img)
            bs, _, ny, nx, _ = x.shape
            if self.grid[i].shape[2:4] != x.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny).to(x.device)
            y = x.sigmoid()
            xy = (y[..., 0:2] * 2. - 0.5 + self.grid[i]) * self.stride[i]
            wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid[i]
            z.append(torch.cat((xy, wh), -1).view(bs, -1, self.no))
        return torch.cat(z, 1)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = IDetect()
        self.grid = self.head.grid

    def fuse(self):
        for m in self.modules():
            if type(m) is IDetect:
                m.forward = m.fuseforward
        return self

    def forward(self, img):
        return self.head(img)


def build() -> nn.Module:
    return Model().fuse()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
