"""SAM's mask stability score: two thresholded masks counted per row in int16 (to save memory
against int64), then over rows in int32, and the counts divided.

Reduced from facebookresearch/segment-anything 1.0 (the PyPI release the second zoo unpacks),
segment_anything/utils/amg.py:156-171 (``calculate_stability_score``; the same two lines in
ultralytics 8.4.190, ultralytics/models/sam/amg.py:71-97): ``(masks > (mask_threshold +
threshold_offset)).sum(-1, dtype=torch.int16).sum(-1, dtype=torch.int32)`` for the intersections,
the same below ``mask_threshold - threshold_offset`` for the unions, then ``intersections /
unions``. Written here in our own words; SAM calls it from its automatic mask generator, a module
calls it here, with SAM's default threshold and offset.
"""

import torch
from torch import nn


def calculate_stability_score(masks: torch.Tensor, mask_threshold: float, threshold_offset: float) -> torch.Tensor:
    high = (masks > (mask_threshold + threshold_offset)).sum(-1, dtype=torch.int16).sum(-1, dtype=torch.int32)
    low = (masks > (mask_threshold - threshold_offset)).sum(-1, dtype=torch.int16).sum(-1, dtype=torch.int32)
    return high / low


class StabilityScore(nn.Module):
    def __init__(self, mask_threshold: float = 0.0, threshold_offset: float = 1.0) -> None:
        super().__init__()
        self.mask_threshold = mask_threshold
        self.threshold_offset = threshold_offset

    def forward(self, masks: torch.Tensor) -> torch.Tensor:
        return calculate_stability_score(masks, self.mask_threshold, self.threshold_offset)


def build() -> nn.Module:
    return StabilityScore()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 8, 10, generator=generator) * 3,)


DYNAMIC = {"masks": {0: "masks", 1: "height", 2: "width"}}
