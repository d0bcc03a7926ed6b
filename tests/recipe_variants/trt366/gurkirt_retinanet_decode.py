"""A RetinaNet head that decodes each image's box offsets against the anchors, one image at a time.

Reduced from gurkirt/RetinaNet.pytorch.1.x @ ecd9d26152ab636586e4363b30c41413b84f76c7,
models/retinanet_shared_heads.py:105 (``torch.stack([decode(flat_loc[b], ancohor_boxes) for b in
range(flat_loc.shape[0])], 0)``) and modules/box_utils.py:301 (``decode``: centre and size offsets,
clamped before ``exp``, corners written into a zero tensor), in our own words: one convolution as the
head, four anchors a cell on a fixed grid.
"""

import math

import torch
from torch import nn

DYNAMIC = {"images": {0: "batch"}}


def decode_boxes(offsets, anchors, scales=(0.1, 0.2), clip=math.log(1000.0 / 16)):
    """Corner boxes from (dx, dy, dw, dh) offsets against (x1, y1, x2, y2) anchors."""
    widths = anchors[:, 2] - anchors[:, 0] + 1
    heights = anchors[:, 3] - anchors[:, 1] + 1
    centre_x = anchors[:, 0] + 0.5 * widths
    centre_y = anchors[:, 1] + 0.5 * heights
    dx = offsets[:, 0::4] * scales[0]
    dy = offsets[:, 1::4] * scales[0]
    dw = torch.clamp(offsets[:, 2::4] * scales[1], max=clip)
    dh = torch.clamp(offsets[:, 3::4] * scales[1], max=clip)
    x = dx * widths[:, None] + centre_x[:, None]
    y = dy * heights[:, None] + centre_y[:, None]
    w = torch.exp(dw) * widths[:, None]
    h = torch.exp(dh) * heights[:, None]
    boxes = torch.zeros_like(offsets)
    boxes[:, 0::4] = x - 0.5 * w
    boxes[:, 1::4] = y - 0.5 * h
    boxes[:, 2::4] = x + 0.5 * w - 1
    boxes[:, 3::4] = y + 0.5 * h - 1
    return boxes


class Head(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.regression = nn.Conv2d(3, 16, 3, stride=4, padding=1)  # four anchors of four offsets a cell
        corners = torch.tensor([[0.0, 0.0, 8.0, 8.0], [0.0, 0.0, 16.0, 8.0], [0.0, 0.0, 8.0, 16.0],
                                [4.0, 4.0, 12.0, 12.0]])
        shifts = torch.arange(4.0) * 4
        grid = torch.stack(torch.meshgrid(shifts, shifts, indexing="ij"), -1).reshape(-1, 1, 2).repeat(1, 1, 2)
        self.register_buffer("anchors", (corners[None] + grid).reshape(-1, 4))

    def forward(self, images):
        out = self.regression(images).permute(0, 2, 3, 1).contiguous()
        flat_loc = out.view(out.size(0), -1, 4)
        return torch.stack([decode_boxes(flat_loc[b], self.anchors) for b in range(flat_loc.shape[0])], 0)


def build() -> nn.Module:
    return Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 16, generator=generator),)
