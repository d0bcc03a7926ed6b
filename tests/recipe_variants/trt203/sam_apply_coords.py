"""Segment Anything's point rescaling: the prompt clicks are deep-copied and cast to float, then
the x and the y column are each scaled to the resized image with a write through ``[..., k]``
whose value reads the same column (``coords[..., 0] = coords[..., 0] * (new_w / old_w)``).

Reduced from facebookresearch/segment-anything, release 1.0 (the PyPI package the second zoo
unpacks), segment_anything/utils/transforms.py:67-81 (``ResizeLongestSide.apply_coords_torch``:
the longest-side target size, ``coords = deepcopy(coords).to(torch.float)`` and the two column
writes), written here in our own words. Here the rescaling is a method of the module that
``forward`` calls, with a fixed original size and target length; SAM's predictor calls its
transform object from ``predict_torch``.
"""

from copy import deepcopy

import torch
from torch import nn


class ScaleClicks(nn.Module):
    def __init__(self, target_length: int = 64, original: tuple[int, int] = (48, 40)) -> None:
        super().__init__()
        self.target_length = target_length
        self.original = original

    def new_size(self) -> tuple[int, int]:
        old_h, old_w = self.original
        scale = self.target_length / max(old_h, old_w)
        return int(old_h * scale + 0.5), int(old_w * scale + 0.5)

    def apply_coords(self, coords: torch.Tensor) -> torch.Tensor:
        old_h, old_w = self.original
        new_h, new_w = self.new_size()
        coords = deepcopy(coords).to(torch.float)
        coords[..., 0] = coords[..., 0] * (new_w / old_w)
        coords[..., 1] = coords[..., 1] * (new_h / old_h)
        return coords

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        return self.apply_coords(points)


def build() -> nn.Module:
    return ScaleClicks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 2, generator=generator) * 40,)


DYNAMIC = {"points": {0: "batch", 1: "clicks"}}
