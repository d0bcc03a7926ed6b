"""YOLOv9's detection head decodes its boxes around anchor points made by ``make_anchors``: for each level it
takes the feature map's dtype and device, builds ``torch.arange(end=w, ..., dtype=dtype)`` plus
``grid_cell_offset`` (and the same over h), meshes them into cell centres and pairs them with a stride column
made by ``torch.full``. When the model runs in half precision (``detect.py --half``, an FP16 export) the
features are float16, so the aranges are float16 and export as float16 ``Range`` nodes, which ONNX Runtime
refuses.

Reduced from WongKinYiu/yolov9 @ 5b1ea9a8b3f0ffe4fe0e203ec6232d788bb3fcff, utils/tal/anchor_generator.py
lines 8-20 (``make_anchors``) as ``Detect.forward`` in models/yolo.py lines 53-66 calls it (with ``dist2bbox``
from the same file and the ``DFL`` module of models/common.py line 232). What is reduced: the backbone and
neck are two strided convolutions giving two levels, each branch of ``cv2``/``cv3`` is one 1x1 convolution,
``dynamic`` is on so the anchors are rebuilt on every call (export.py sets it from ``--dynamic``; its own
``--half`` refuses ``--dynamic``, so this is the half model exported by hand with dynamic axes), and the whole
module runs in float16. Written here in our own words.
"""

import torch
from torch import nn


def make_anchors(feats, strides, grid_cell_offset=0.5):
    anchor_points, stride_tensor = [], []
    dtype, device = feats[0].dtype, feats[0].device
    for i, stride in enumerate(strides):
        _, _, h, w = feats[i].shape
        sx = torch.arange(end=w, device=device, dtype=dtype) + grid_cell_offset
        sy = torch.arange(end=h, device=device, dtype=dtype) + grid_cell_offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), stride, dtype=dtype, device=device))
    return torch.cat(anchor_points), torch.cat(stride_tensor)


def dist2bbox(distance, anchor_points, dim=-1):
    lt, rb = torch.split(distance, 2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    return torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), dim)


class DFL(nn.Module):
    def __init__(self, c1: int = 16) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1)
        self.c1 = c1

    def forward(self, x):
        b, _, a = x.shape
        return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)


class TinyDetect(nn.Module):
    dynamic = True

    def __init__(self, nc: int = 3, reg_max: int = 8) -> None:
        super().__init__()
        self.nc, self.reg_max = nc, reg_max
        self.no = nc + 4 * reg_max
        self.stride = torch.tensor([8.0, 16.0])
        self.p3 = nn.Conv2d(3, 8, 3, stride=8, padding=1)
        self.p4 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.cv2 = nn.ModuleList(nn.Conv2d(8, 4 * reg_max, 1) for _ in range(2))
        self.cv3 = nn.ModuleList(nn.Conv2d(8, nc, 1) for _ in range(2))
        self.dfl = DFL(reg_max)
        self.shape = None

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        f3 = self.p3(images).relu()
        x = [f3, self.p4(f3).relu()]
        shape = x[0].shape
        for i in range(2):
            x[i] = torch.cat((self.cv2[i](x[i]), self.cv3[i](x[i])), 1)
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (a.transpose(0, 1) for a in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        box, cls = torch.cat([xi.view(shape[0], self.no, -1) for xi in x], 2).split((4 * self.reg_max, self.nc), 1)
        dbox = dist2bbox(self.dfl(box), self.anchors.unsqueeze(0), dim=1) * self.strides
        return torch.cat((dbox, cls.sigmoid()), 1)


def build() -> nn.Module:
    return TinyDetect().half().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator).half(),)


DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
CALL = "sx = torch.arange(end=w, device=device, dtype=dtype) + grid_cell_offset"
