"""Python built-ins on module state: a detection head's anchor cache keyed by the feature shape.

The decode (as in ultralytics' ``Detect`` and YOLOv5's grid) builds anchors only when the
feature map's shape differs from the one cached on ``self``. The eager run before the export
fills the cache with the example's shape; the export's comparison is then a traced size turned
into a bool, the cache hits, and the graph keeps the example's anchors for every image size.
migrate locates the TracerWarning at the ``if`` and makes the cache miss while tracing
(TRT726), kept because the verification finds it equivalent on every input set.
"""

import torch
from torch import nn


def make_anchors(feats: list[torch.Tensor], strides: tuple[float, ...], offset: float = 0.5):
    """Cell centres of every level, flattened, and the stride of each."""
    points, steps = [], []
    for feat, stride in zip(feats, strides):
        h, w = feat.shape[2], feat.shape[3]
        ys = torch.arange(h, dtype=feat.dtype) + offset
        xs = torch.arange(w, dtype=feat.dtype) + offset
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
        points.append(torch.stack((xx, yy), -1).view(-1, 2))
        steps.append(torch.full((h * w, 1), stride, dtype=feat.dtype))
    return torch.cat(points), torch.cat(steps)


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fine = nn.Conv2d(3, 4, 1)
        self.coarse = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.stride = (1.0, 2.0)
        self.dynamic = False
        self.shape = None
        self.anchors = torch.empty(0)
        self.strides = torch.empty(0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [self.fine(x), self.coarse(x)]
        shape = feats[0].shape
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (a.transpose(0, 1) for a in make_anchors(feats, self.stride))
            self.shape = shape
        boxes = torch.cat([f.flatten(2) for f in feats], 2)
        return (boxes[:, :2] + self.anchors) * self.strides


def build() -> nn.Module:
    return Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)
