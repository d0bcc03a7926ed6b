"""CenterTrack's class-specific box sizes: ``wh.gather(2, cats.long()).squeeze(2)``.

Reduced from xingyizhou/CenterTrack at commit e4e7534cc2ebfbd31e0cde680988f286c65fe34f,
src/lib/model/decode.py, ``generic_decode`` (lines 78-91 and 112-122): the K best peaks of the
class heatmaps give scores, classes and pixel indices; the size map, gathered at those pixels, holds
one (w, h) pair per class when the head is class-specific, and the pair of each peak's own class is
picked with a ``gather`` along the class axis whose index has size 1 there, which ``squeeze(2)``
then drops. Written here in our own words: the heatmap NMS and the offset and tracking heads are
left out, the negative sizes are clamped with ``clamp(min=0)`` where the original writes
``wh[wh < 0] = 0``, the remainders of ``_topk`` are written as subtractions (the dynamo exporter of
torch 2.13 cannot convert ``%`` by a size it traces symbolically, before and after this recipe),
and the boxes are returned with their scores.

The squeezed axis is 1 by construction (the gather's index is expanded to ``(batch, K, 1, 2)``),
but the export cannot size it: the TorchScript exporter guards the squeeze with an ``If``.
"""

import torch
from torch import nn


class ClassSpecificDecode(nn.Module):
    def __init__(self, k: int = 5) -> None:
        super().__init__()
        self.k = k

    def forward(self, heat, wh):
        batch, cat, height, width = heat.shape
        scores, inds = heat.sigmoid().flatten(1).topk(self.k)
        clses = torch.div(inds, height * width, rounding_mode="floor")
        pixels = inds - clses * (height * width)
        rows = torch.div(pixels, width, rounding_mode="floor")
        ys = rows.float()
        xs = (pixels - rows * width).float()
        wh = wh.flatten(2).permute(0, 2, 1)
        wh = wh.gather(1, pixels.unsqueeze(2).expand(batch, self.k, wh.shape[2]))
        wh = wh.clamp(min=0)
        wh = wh.view(batch, self.k, -1, 2)
        cats = clses.view(batch, self.k, 1, 1).expand(batch, self.k, 1, 2)
        wh = wh.gather(2, cats.long()).squeeze(2)
        boxes = torch.stack([xs - wh[..., 0] / 2, ys - wh[..., 1] / 2, xs + wh[..., 0] / 2, ys + wh[..., 1] / 2], -1)
        return torch.cat([boxes, scores[..., None]], -1)


def build() -> nn.Module:
    return ClassSpecificDecode()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 4, 5, generator=generator), 3 * torch.randn(2, 6, 4, 5, generator=generator))


DYNAMIC = {"heat": {0: "batch", 2: "height", 3: "width"}, "wh": {0: "batch", 2: "height", 3: "width"}}
