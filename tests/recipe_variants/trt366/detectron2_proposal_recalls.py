"""Proposal recall at each IoU threshold: a tensor made like the thresholds, filled threshold by threshold.

Reduced from facebookresearch/detectron2 @ 02b5c4e295e990042a714712c21dc79b731e8833,
detectron2/evaluation/coco_evaluation.py:552 (``_evaluate_box_proposals``: ``recalls = torch.zeros_like(thresholds)``,
then ``for i, t in enumerate(thresholds): recalls[i] = (gt_overlaps >= t).float().sum() / float(num_pos)`` and
``ar = recalls.mean()``; lvis_evaluation.py:316 has the same loop), in our own words: each ground-truth box's best
IoU with the proposals is an input, sorted first as there, the count of ground-truth boxes a setting, and the
thresholds an input of their own (a dynamic first axis).
"""

import torch
from torch import nn

DYNAMIC = {"thresholds": {0: "thresholds"}, "gt_overlaps": {0: "boxes"}}


class ProposalRecall(nn.Module):
    def __init__(self, num_pos: int = 6) -> None:
        super().__init__()
        self.num_pos = num_pos

    def forward(self, thresholds, gt_overlaps):
        gt_overlaps, _ = torch.sort(gt_overlaps)
        recalls = torch.zeros_like(thresholds)
        for i, t in enumerate(thresholds):
            recalls[i] = (gt_overlaps >= t).float().sum() / float(self.num_pos)
        return recalls, recalls.mean()


def build() -> nn.Module:
    return ProposalRecall()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.arange(0.5, 0.95 + 1e-5, 0.05), torch.rand(6, generator=generator))
