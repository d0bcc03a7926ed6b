"""Which classes a batch of labels holds, with ``cls.squeeze(-1).to(torch.int).unique()``: ultralytics.

Reduced from ultralytics 8.4.190 (the PyPI wheel), ultralytics/models/yolo/yoloe/val.py,
``YOLOEDetectValidator.get_visual_pe`` (lines 64-76): per batch,
``cls = batch["cls"].squeeze(-1).to(torch.int).unique()`` (line 72) and
``torch.bincount(cls, minlength=len(names))`` adds one per class present in the batch. Written
here in our own words as a module over one batch's ``(N, 1)`` float labels; ``bincount`` (no ONNX
export) is written as the count of each class id among the unique ones, the same for ids below
``minlength``.
"""

import torch
from torch import nn


class ClassesPresent(nn.Module):
    def __init__(self, num_classes: int = 6) -> None:
        super().__init__()
        self.num_classes = num_classes

    def forward(self, batch_cls):
        cls = batch_cls.squeeze(-1).to(torch.int).unique()
        ids = torch.arange(self.num_classes, dtype=cls.dtype, device=cls.device)
        return (cls[:, None] == ids[None]).sum(0)


def build() -> nn.Module:
    return ClassesPresent()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 6, (9, 1), generator=generator).float(),)


DYNAMIC = {"batch_cls": {0: "labels"}}
