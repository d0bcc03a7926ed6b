"""torchvision's AnchorGenerator: the per-level base anchors are cast to the feature maps' dtype
and device in forward, and the list is assigned back to ``self.cell_anchors``.

Reduced from pytorch/vision @ 6922d2162dbf781a9d5eb730b07b64658f75441b,
torchvision/models/detection/anchor_utils.py (``AnchorGenerator.set_cell_anchors``:
``self.cell_anchors = [cell_anchor.to(dtype=dtype, device=device) for cell_anchor in self.cell_anchors]``,
called from ``forward`` before ``grid_anchors``), written here in our own words; the image list
and the per-image repetition are left out.
"""

import torch
from torch import nn


def base_anchors(scales, ratios):
    scales = torch.as_tensor(scales, dtype=torch.float32)
    ratios = torch.as_tensor(ratios, dtype=torch.float32)
    h = torch.sqrt(ratios)
    w = 1 / h
    ws = (w[:, None] * scales[None, :]).view(-1)
    hs = (h[:, None] * scales[None, :]).view(-1)
    return (torch.stack([-ws, -hs, ws, hs], dim=1) / 2).round()


class Anchors(nn.Module):
    def __init__(self, sizes=((16,), (32,)), ratios=((0.5, 1.0, 2.0),) * 2, strides=(4, 8)) -> None:
        super().__init__()
        self.strides = strides
        self.cell_anchors = [base_anchors(s, r) for s, r in zip(sizes, ratios)]

    def set_cell_anchors(self, dtype, device):
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def forward(self, p3, p4):
        self.set_cell_anchors(p3.dtype, p3.device)
        out = []
        for feature, stride, cell in zip((p3, p4), self.strides, self.cell_anchors):
            h, w = feature.shape[-2:]
            ys = torch.arange(0, h, dtype=torch.int32, device=feature.device) * stride
            xs = torch.arange(0, w, dtype=torch.int32, device=feature.device) * stride
            y, x = torch.meshgrid(ys, xs, indexing="ij")
            shifts = torch.stack((x.reshape(-1), y.reshape(-1), x.reshape(-1), y.reshape(-1)), dim=1)
            anchors = (shifts.view(-1, 1, 4) + cell.view(1, -1, 4)).reshape(-1, 4)
            out.append(anchors + feature.mean() * 0)
        return torch.cat(out)


def build() -> nn.Module:
    return Anchors()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(1, 8, 6, 6, generator=generator), torch.rand(1, 8, 3, 3, generator=generator)


DYNAMIC = {"p3": {2: "h3", 3: "w3"}, "p4": {2: "h4", 3: "w4"}}
