"""Aligned-box IoU with empty boxes defined as IoU 0: ``torch.where(valid, inter / union, 0)``.

``torch.where`` only returns the selected branch, so the ``0 / 0`` of an empty box pair
never shows. The arithmetic blend that TRT102 writes for TensorRT (``--unsafe`` only),
``valid * (inter / union) + ~valid * 0``, evaluates both branches: ``NaN * 0`` is NaN, and
the NaN leaks into the output. The verifier reports the mismatch and names TRT102.

    trtcodemod verify examples/verify/where_iou.py --model build --inputs inputs --unsafe
"""

import torch
from torch import nn


class AlignedIoU(nn.Module):
    def forward(self, boxes1: torch.Tensor, boxes2: torch.Tensor) -> torch.Tensor:
        lt = torch.maximum(boxes1[:, :2], boxes2[:, :2])
        rb = torch.minimum(boxes1[:, 2:], boxes2[:, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[:, 0] * wh[:, 1]
        area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
        area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
        union = area1 + area2 - inter
        valid = union > 0
        return torch.where(valid, inter / union, torch.zeros_like(inter))


def build() -> nn.Module:
    return AlignedIoU()


def _boxes(n: int, generator: torch.Generator) -> torch.Tensor:
    xy = torch.rand(n, 2, generator=generator) * 10
    wh = torch.rand(n, 2, generator=generator) * 5 + 0.5
    return torch.cat([xy, xy + wh], dim=1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    boxes1, boxes2 = _boxes(16, generator), _boxes(16, generator)
    # Padding rows, as produced by a fixed-size detector output: empty boxes on both sides.
    boxes1[:3] = 0.0
    boxes2[:3] = 0.0
    return boxes1, boxes2
