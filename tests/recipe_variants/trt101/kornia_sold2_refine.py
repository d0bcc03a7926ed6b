"""A heatmap block renormalised only when it holds a confident value: kornia's SOLD2 line detector.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/sold2/sold2_detector.py:322-329 and
357-359 (``refine_heatmap``: the mean of the top ``ratio`` of the values above ``valid_thresh``
divides the heatmap, clamped to [0, 1]; ``refine_heatmap_local``: ``if subheatmap.max() >
valid_thresh: subheatmap = self.refine_heatmap(subheatmap, ratio, valid_thresh=valid_thresh)`` for
each block). Written here in our own words, for one block the size of the heatmap.
"""

import math

import torch
from torch import nn


class LineHeatmap(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 1, 1)
        nn.init.ones_(self.head.weight)  # the heatmap's sign follows the image's: both branches reachable
        nn.init.zeros_(self.head.bias)

    def refine_heatmap(self, heatmap: torch.Tensor, ratio: float = 0.2, valid_thresh: float = 1e-2) -> torch.Tensor:
        heatmap_values = heatmap[heatmap > valid_thresh]
        sorted_values = torch.sort(heatmap_values, descending=True)[0]
        top10_len = math.ceil(sorted_values.shape[0] * ratio)
        max20 = torch.mean(sorted_values[:top10_len])
        return torch.clamp(heatmap / max20, min=0.0, max=1.0)

    def forward(self, image):
        subheatmap = self.head(image).sigmoid()[0, 0]
        valid_thresh = 0.5
        if subheatmap.max() > valid_thresh:
            subheatmap = self.refine_heatmap(subheatmap, 0.2, valid_thresh=valid_thresh)
        return subheatmap


def build() -> nn.Module:
    return LineHeatmap()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 6, generator=generator) * 3,)


DYNAMIC = {"image": {2: "h", 3: "w"}}
