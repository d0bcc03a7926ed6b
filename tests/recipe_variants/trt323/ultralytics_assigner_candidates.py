"""Ultralytics' assigner masks: ``.gt_(0)`` of the targets and ``.gt_(eps)`` of the distances, both in place.

Reduced from ultralytics 8.0.200 (the PyPI package): ultralytics/utils/loss.py,
``v8DetectionLoss.__call__`` (lines 164-183: ``gt_labels, gt_bboxes = targets.split((1, 4), 2)`` and
``mask_gt = gt_bboxes.sum(2, keepdim=True).gt_(0)``, an int operand, the padded rows of the batch's
targets being all zeros), and ultralytics/utils/tal.py, ``select_candidates_in_gts`` (lines 12-28:
the distances of each anchor centre to a box's four sides, ``return bbox_deltas.amin(3).gt_(eps)``)
and ``TaskAlignedAssigner.get_pos_mask`` (lines 132-142, which hands ``mask_in_gts * mask_gt`` to the
box metrics). Both comparisons' receivers are calls' results; both stay float 1.0/0.0, and their
product is the candidates of the real boxes. The metrics and the top-k are left out. Written here
in our own words as a module of the anchor centres of a 4x5 grid, stride 8.
"""

import torch
from torch import nn


def select_candidates_in_gts(xy_centers, gt_bboxes, eps=1e-9):
    n_anchors = xy_centers.shape[0]
    bs, n_boxes, _ = gt_bboxes.shape
    lt, rb = gt_bboxes.view(-1, 1, 4).chunk(2, 2)
    bbox_deltas = torch.cat((xy_centers[None] - lt, rb - xy_centers[None]), dim=2).view(bs, n_boxes, n_anchors, -1)
    return bbox_deltas.amin(3).gt_(eps)


class CandidateMask(nn.Module):
    def __init__(self, stride: int = 8, rows: int = 4, columns: int = 5) -> None:
        super().__init__()
        y, x = torch.meshgrid(torch.arange(rows) + 0.5, torch.arange(columns) + 0.5, indexing="ij")
        self.register_buffer("anc_points", torch.stack([x, y], -1).view(-1, 2) * stride)

    def forward(self, targets):
        gt_labels, gt_bboxes = targets.split((1, 4), 2)
        mask_gt = gt_bboxes.sum(2, keepdim=True).gt_(0)
        mask_in_gts = select_candidates_in_gts(self.anc_points, gt_bboxes)
        return mask_in_gts * mask_gt


def build() -> nn.Module:
    return CandidateMask()


def targets(generator: torch.Generator, batch: int, boxes: int, real: int) -> torch.Tensor:
    corner = torch.rand(batch, boxes, 2, generator=generator) * 30
    box = torch.cat([corner, corner + torch.rand(batch, boxes, 2, generator=generator) * 20 + 1], 2)
    rows = torch.cat([torch.randint(0, 3, (batch, boxes, 1), generator=generator).float(), box], 2)
    rows[:, real:] = 0.0
    return rows


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (targets(generator, 2, 4, 3),)


DYNAMIC = {"targets": {0: "batch", 1: "boxes"}}
