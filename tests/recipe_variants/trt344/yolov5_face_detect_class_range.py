"""YOLOv5-Face's detection head: the sigmoid of the box, objectness and class columns written through a name.

Reduced from deepcam-cn/yolov5-face at commit 84ef013381e3a155b7a746215974dca7894e0f3e, models/yolo.py,
``Detect.forward`` (lines 76-105): each level's output, viewed as (batch, anchors, ny, nx, 15 + nc),
is copied into a zero tensor by ``class_range = list(range(5)) + list(range(15, 15 + self.nc))``
and ``y[..., class_range] = x[i][..., class_range].sigmoid()`` (lines 86-88), the ten landmark
columns (5:15) pass through raw, then box centres and sizes are decoded against the grid and the
anchors and each landmark pair is scaled by its anchor and shifted by the grid (lines 91-99). Kept:
the list-valued name written after an Ellipsis, positions 0-4 and 15-16 that no slice names, in a
head that builds its grid from the feature map's size. One level with three anchors and two classes;
the original's in-place decodes of the other columns (slice writes, another rule's recipe) are
written here as one concatenation. Written here in our own words.
"""

import torch
from torch import nn

NC = 2
STRIDE = 8.0
ANCHORS = ((4.0, 5.0), (8.0, 10.0), (13.0, 16.0))


class FaceDetect(nn.Module):
    def __init__(self, nc: int = NC) -> None:
        super().__init__()
        self.nc = nc
        self.no = nc + 5 + 10
        self.na = len(ANCHORS)
        self.m = nn.Conv2d(8, self.no * self.na, 1)
        self.register_buffer("anchor_grid", torch.tensor(ANCHORS).view(1, self.na, 1, 1, 2))

    def forward(self, features):
        out = self.m(features)
        bs, _, ny, nx = out.shape
        out = out.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        rows, cols = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        grid = torch.stack((cols, rows), 2).view(1, 1, ny, nx, 2).to(out.dtype)

        y = torch.full_like(out, 0)
        class_range = list(range(5)) + list(range(15, 15 + self.nc))
        y[..., class_range] = out[..., class_range].sigmoid()
        landmarks = out[..., 5:15]

        xy = (y[..., 0:2] * 2.0 - 0.5 + grid) * STRIDE
        wh = (y[..., 2:4] * 2) ** 2 * self.anchor_grid
        marks = [landmarks[..., k:k + 2] * self.anchor_grid + grid * STRIDE for k in range(0, 10, 2)]
        decoded = torch.cat([xy, wh, y[..., 4:5], *marks, y[..., 15:]], -1)
        return decoded.view(bs, -1, self.no)


def build() -> nn.Module:
    return FaceDetect().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 4, 5, generator=generator) * 2,)


DYNAMIC = {"features": {0: "batch", 2: "height", 3: "width"}}
