"""YOLOv5's ``Detect`` head rebuilds its cell grid with ``_make_grid`` whenever the feature size changes (and
on every call once export sets ``dynamic``): it reads the device and dtype of its registered ``anchors``
buffer, makes the y and x ranges with ``torch.arange(..., device=d, dtype=t)``, meshes them and
subtracts the half-cell offset. After ``model.half()`` (``export.py --half``, ``detect.py --half``) the
anchors buffer is float16, so both aranges are float16 and export as float16 ``Range`` nodes, which ONNX
Runtime refuses.

Reduced from ultralytics/yolov5 @ 5081342f04fb287fc2e5f2b5a4e06752b7937b1c, models/yolo.py lines 117-128
(``Detect._make_grid``) as ``Detect.forward`` (lines 91-115, the boxes-only branch) calls it. What is
reduced: the backbone is two strided convolutions giving two levels, ``dynamic`` is on (export.py sets it from
``--dynamic``; its own ``--half`` refuses ``--dynamic``, so this is the half model exported by hand with dynamic
axes), the head returns only the concatenated detections (export mode), the segmentation branch
and the torch<1.10 meshgrid fallback are left out, and the whole module runs in float16.
Written here in our own words.
"""

import torch
from torch import nn


class TinyDetect(nn.Module):
    dynamic = True

    def __init__(self, nc: int = 2) -> None:
        super().__init__()
        anchors = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119))
        self.nc, self.no = nc, nc + 5
        self.nl, self.na = len(anchors), len(anchors[0]) // 2
        self.grid = [torch.empty(0) for _ in range(self.nl)]
        self.anchor_grid = [torch.empty(0) for _ in range(self.nl)]
        grid_anchors = torch.tensor(anchors).float().view(self.nl, -1, 2) / torch.tensor([[[8.0]], [[16.0]]])
        self.register_buffer("anchors", grid_anchors)
        self.stride = torch.tensor([8.0, 16.0])
        self.p3 = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.p4 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.m = nn.ModuleList(nn.Conv2d(8, self.no * self.na, 1) for _ in range(self.nl))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        f3 = self.p3(images).relu()
        x = [f3, self.p4(f3).relu()]
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if self.dynamic or self.grid[i].shape[2:4] != x[i].shape[2:4]:
                self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
            xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
            xy = (xy * 2 + self.grid[i]) * self.stride[i]
            wh = (wh * 2) ** 2 * self.anchor_grid[i]
            z.append(torch.cat((xy, wh, conf), 4).view(bs, self.na * nx * ny, self.no))
        return torch.cat(z, 1)

    def _make_grid(self, nx=20, ny=20, i=0):
        d = self.anchors[i].device
        t = self.anchors[i].dtype
        shape = 1, self.na, ny, nx, 2
        y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)
        yv, xv = torch.meshgrid(y, x, indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


def build() -> nn.Module:
    return TinyDetect().half().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator).half(),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
CALL = "y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)"
