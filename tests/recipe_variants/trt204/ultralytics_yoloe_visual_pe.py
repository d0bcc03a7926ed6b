"""Ultralytics' YOLOE visual prompt embeddings: per-class sums of prompt embeddings are
averaged by their counts, and classes that no prompt showed get a zero embedding through a
(C,) mask over the (C, D) table (``visual_pe[cls_visual_num == 0] = 0``: a mask over fewer axes
than the tensor).

Reduced from ultralytics/ultralytics 8.4.190 (the PyPI release the second zoo unpacks),
ultralytics/models/yolo/yoloe/val.py:92-95 (``YOLOEDetectValidator.get_visual_pe``: the
normalization of the shown classes and ``visual_pe[cls_visual_num == 0] = 0``), written here in
our own words; the normalization is over every row (the original's masked ``F.normalize``
write is TRT202's per-row form) and the sums come in as inputs.
"""

import torch
from torch import nn
from torch.nn import functional as F


class VisualPrompts(nn.Module):
    def forward(self, sums: torch.Tensor, cls_visual_num: torch.Tensor) -> torch.Tensor:
        visual_pe = F.normalize(sums / cls_visual_num.clamp(min=1)[:, None], dim=-1, p=2)
        visual_pe[cls_visual_num == 0] = 0
        return visual_pe.unsqueeze(0)


def build() -> nn.Module:
    return VisualPrompts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    sums = torch.randn(5, 4, generator=generator)
    return sums, torch.tensor([2, 0, 1, 0, 3])


DYNAMIC = {"sums": {0: "classes"}, "cls_visual_num": {0: "classes"}}
