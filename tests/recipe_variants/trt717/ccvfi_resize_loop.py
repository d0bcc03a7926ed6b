"""Frames resized up until each side times the flow scale is a multiple of 64, by a ``while`` loop.

Reduced from TensoRaws/ccvfi @ 7626b74fdbd80d49b432e5cf05f3dad7f5c51e06, ccvfi/util/misc.py:24-31
(``resize(img, _scale)``: ``while _h * _scale % 64 != 0: _h += 1``, the same for ``_w``, then a bilinear
resize to ``(int(_h), int(_w))``; RIFE's inference resizes both frames with it and resizes the result
back), written here in our own words. Traced, each loop runs as many times as the example needed: the
graph keeps the example's padded size. ``int`` of a traced size is TRT712's; the loops are TRT717's.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def grow_to_grid(frame: Tensor, flow_scale: float) -> Tensor:
    _, _, rows, cols = frame.shape
    while rows * flow_scale % 16 != 0:
        rows += 1
    while cols * flow_scale % 16 != 0:
        cols += 1
    return F.interpolate(frame, size=(int(rows), int(cols)), mode="bilinear", align_corners=False)


class Interpolator(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Conv2d(6, 3, 3, padding=1)
        self.flow_scale = 0.5

    def forward(self, x):
        _, _, h, w = x.shape
        first = grow_to_grid(x[:, :3], self.flow_scale)
        second = grow_to_grid(x[:, 3:], self.flow_scale)
        out = self.body(torch.cat([first, second], 1))
        return F.interpolate(out, size=(int(h), int(w)), mode="bilinear", align_corners=False)


def build() -> nn.Module:
    return Interpolator()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 6, 32, 64, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
