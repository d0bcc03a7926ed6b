"""Deformable DETR's criterion for the two-stage encoder proposals: the targets (a list of one
dict of tensors per image) are deep-copied and every copy's labels replaced by zeros, so the
proposals are matched and scored class-agnostically while the caller's targets stay as they were.

Reduced from fundamentalvision/Deformable-DETR @ 11169a60c33333af00a4849f1808023eba96a931,
models/deformable_detr.py:373-378 (``SetCriterion.forward``: ``bin_targets =
copy.deepcopy(targets)``, ``bt['labels'] = torch.zeros_like(bt['labels'])`` for each, then the
matcher and the losses on ``bin_targets``; DINO, DN-DETR and RT-DETR's criteria carry the same
lines), written here in our own words; the matcher is left out (predictions and targets are
paired by position), the losses are a cross entropy and an L1 term, and the targets are built
from the inputs with one tensor of their own each, as the data loader gives them (rows of one
input tensor would share its memory, whose copy the helper refuses under the TorchScript
exporter).
"""

import copy

import torch
from torch import nn
from torch.nn import functional as F


class BinaryCriterion(nn.Module):
    def forward(self, logits: torch.Tensor, pred_boxes: torch.Tensor, labels: torch.Tensor,
                boxes: torch.Tensor) -> torch.Tensor:
        targets = [{"labels": labels[i].clone(), "boxes": boxes[i].clone()} for i in range(labels.shape[0])]
        bin_targets = copy.deepcopy(targets)
        for bt in bin_targets:
            bt["labels"] = torch.zeros_like(bt["labels"])
        losses = []
        for i, bt in enumerate(bin_targets):
            ce = F.cross_entropy(logits[i], bt["labels"], reduction="none")
            l1 = (pred_boxes[i] - bt["boxes"]).abs().sum(-1)
            losses.append(ce + l1 + targets[i]["labels"].float() * 0.0)
        return torch.stack(losses)


def build() -> nn.Module:
    return BinaryCriterion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    logits = torch.randn(2, 3, 2, generator=generator)
    pred_boxes = torch.rand(2, 3, 4, generator=generator)
    labels = torch.randint(0, 5, (2, 3), generator=generator)
    boxes = torch.rand(2, 3, 4, generator=generator)
    return logits, pred_boxes, labels, boxes


DYNAMIC = {"logits": {1: "queries"}, "pred_boxes": {1: "queries"}, "labels": {1: "queries"},
           "boxes": {1: "queries"}}
