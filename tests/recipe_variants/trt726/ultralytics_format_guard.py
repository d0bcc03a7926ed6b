"""A shape-keyed cache behind a guard: ultralytics 8.3's ``Detect`` refreshes its anchors only for
formats other than IMX, ``if self.format != "imx" and (self.dynamic or self.shape != shape):``.

Reduced from the ultralytics 8.3.100 release (PyPI wheel of ultralytics/ultralytics),
ultralytics/nn/modules/head.py:103-140 (``Detect._inference``: ``shape = x[0].shape``, the guarded
refresh of ``self.anchors, self.strides`` and ``self.shape``, the box decode) and
ultralytics/utils/tal.py:364-388 (``make_anchors``, ``dist2bbox``), written here in our own words
with no DFL (four distances per cell) and one class.
"""

import torch
from torch import nn


def make_anchors(feats, strides, offset=0.5):
    points, steps = [], []
    for feat, stride in zip(feats, strides):
        h, w = feat.shape[2:]
        sx = torch.arange(end=w, dtype=feat.dtype) + offset
        sy = torch.arange(end=h, dtype=feat.dtype) + offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        points.append(torch.stack((sx, sy), -1).view(-1, 2))
        steps.append(torch.full((h * w, 1), stride, dtype=feat.dtype))
    return torch.cat(points), torch.cat(steps)


class Detect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nc = 1
        self.no = self.nc + 4
        self.stride = (1.0, 2.0)
        self.format = "onnx"
        self.dynamic = False
        self.shape = None
        self.anchors = torch.empty(0)
        self.strides = torch.empty(0)
        self.heads = nn.ModuleList(nn.Conv2d(3, self.no, 1, stride=int(s)) for s in self.stride)

    def _inference(self, x):
        shape = x[0].shape
        x_cat = torch.cat([xi.view(shape[0], self.no, -1) for xi in x], 2)
        if self.format != "imx" and (self.dynamic or self.shape != shape):
            self.anchors, self.strides = (a.transpose(0, 1) for a in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        box, cls = x_cat.split((4, self.nc), 1)
        lt, rb = box.chunk(2, 1)
        anchors = self.anchors.unsqueeze(0)
        x1y1, x2y2 = anchors - lt, anchors + rb
        dbox = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * self.strides
        return torch.cat((dbox, cls.sigmoid()), 1)

    def forward(self, img):
        return self._inference([head(img) for head in self.heads])


def build() -> nn.Module:
    return Detect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"img": {2: "h", 3: "w"}}
