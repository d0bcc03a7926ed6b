"""Ultralytics' ``clip_boxes``: boxes clipped to the image in place, one coordinate at a time,
by a write whose value reads the same column (``boxes[..., 0] = boxes[..., 0].clamp(0, w)``: the
branch Ultralytics keeps for MPS and old torch; elsewhere it calls ``clamp_`` on the views). The
function's contract is the in-place write: ``scale_boxes`` returns the clipped caller's tensor.

Reduced from ultralytics/ultralytics 8.4.190 (the PyPI release the second zoo unpacks),
ultralytics/utils/ops.py:188-209 (``clip_boxes``, its tensor branch written with assignments),
written here in our own words; ``forward`` scales the predicted boxes first, as
``scale_boxes`` does before it calls ``clip_boxes``.

Not rewritten: ``boxes`` is the caller's tensor (a parameter, never rebound), and the caller
may rely on the write (Ultralytics' own callers do). TRT203 has no evidence here that it is a
tensor at all, and leaves the file as it is.
"""

import torch
from torch import nn


def clip_boxes(boxes, shape):
    h, w = shape[:2]
    boxes[..., 0] = boxes[..., 0].clamp(0, w)
    boxes[..., 1] = boxes[..., 1].clamp(0, h)
    boxes[..., 2] = boxes[..., 2].clamp(0, w)
    boxes[..., 3] = boxes[..., 3].clamp(0, h)
    return boxes


class ScaleAndClip(nn.Module):
    def forward(self, image: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
        scaled = boxes * 2.0
        clip_boxes(scaled, image.shape[-2:])
        return scaled


def build() -> nn.Module:
    return ScaleAndClip()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(1, 3, 16, 20, generator=generator), torch.randn(5, 4, generator=generator) * 12


DYNAMIC = {"image": {2: "height", 3: "width"}, "boxes": {0: "boxes"}}
