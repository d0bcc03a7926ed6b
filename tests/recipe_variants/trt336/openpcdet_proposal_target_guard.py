"""OpenPCDet's proposal target layer drops the zero rows that pad each scene's gt boxes with a guarded scan from the
last row, ``while k >= 0 and cur_gt[k].sum() == 0: k -= 1``, trims them (``cur_gt[:k + 1]``, a single zero box
where none is left) and matches the proposals to the boxes that remain. PointRCNN's trim with a guard that stops
the loop before it runs off the scene: the test reads the counter in the guard as well as in the row it sums.

Reduced from open-mmlab/OpenPCDet at commit 8cacccec11db6f59bf6934600c9a175dae254806 (2024-04-17),
pcdet/models/roi_heads/target_assigner/proposal_target_layer.py, ``ProposalTargetLayer.sample_rois_for_rcnn``
(lines 64-115: the batch's proposals and padded gt boxes from ``batch_dict``, per scene from line 89
``k = cur_gt.__len__() - 1``, the loop at lines 93-94, the trim at lines 95-96, the 3-D IoU and ``torch.max(iou3d,
dim=1)`` at lines 104-105, each proposal's overlap and matched box kept at lines 111 and 113). In our own words: the
rotated 3-D IoU (a CUDA op) is an axis-aligned overlap in bird's-eye view; the proposals' subsampling (random), their
scores and labels are left out. (In OpenPCDet this runs while training the second stage; here it is the model.)
"""

from typing import Tuple

import torch
from torch import nn

DYNAMIC: dict = {}


def bev_overlap(boxes_a: torch.Tensor, boxes_b: torch.Tensor) -> torch.Tensor:
    """Axis-aligned overlap in bird's-eye view (x, y centre; dx, dy size) of each box of ``a`` with each of ``b``."""
    a_centre, a_size = boxes_a[:, None, 0:2], boxes_a[:, None, 3:5]
    b_centre, b_size = boxes_b[None, :, 0:2], boxes_b[None, :, 3:5]
    lo = torch.max(a_centre - a_size / 2, b_centre - b_size / 2)
    hi = torch.min(a_centre + a_size / 2, b_centre + b_size / 2)
    inter = (hi - lo).clamp(min=0).prod(-1)
    union = a_size.prod(-1) + b_size.prod(-1) - inter
    return inter / union.clamp(min=1e-6)


class ProposalTargetLayer(nn.Module):
    def forward(self, rois: torch.Tensor, gt_boxes: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.sample_rois_for_rcnn({"batch_size": rois.shape[0], "rois": rois, "gt_boxes": gt_boxes})

    def sample_rois_for_rcnn(self, batch_dict):
        batch_size = batch_dict["batch_size"]
        rois = batch_dict["rois"]
        gt_boxes = batch_dict["gt_boxes"]

        code_size = rois.shape[-1]
        batch_gt_of_rois = rois.new_zeros(batch_size, rois.shape[1], code_size + 1)
        batch_roi_ious = rois.new_zeros(batch_size, rois.shape[1])

        for index in range(batch_size):
            cur_roi, cur_gt = rois[index], gt_boxes[index]
            k = cur_gt.__len__() - 1
            while k >= 0 and cur_gt[k].sum() == 0:
                k -= 1
            cur_gt = cur_gt[:k + 1]
            cur_gt = cur_gt.new_zeros((1, cur_gt.shape[1])) if len(cur_gt) == 0 else cur_gt

            iou3d = bev_overlap(cur_roi, cur_gt[:, 0:7])
            max_overlaps, gt_assignment = torch.max(iou3d, dim=1)

            batch_roi_ious[index] = max_overlaps
            batch_gt_of_rois[index] = cur_gt[gt_assignment]
        return batch_gt_of_rois, batch_roi_ious


def build() -> nn.Module:
    return ProposalTargetLayer()


def scene(generator: torch.Generator, boxes: int, valid: int, width: int = 8) -> torch.Tensor:
    """``boxes`` rows of (x, y, z, dx, dy, dz, heading, class), the first ``valid`` boxes, the rest zero padding."""
    rows = torch.rand(boxes, width, generator=generator) * 4 + 0.5
    rows[valid:] = 0
    return rows


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    rois = torch.rand(2, 5, 7, generator=generator) * 4 + 0.5
    return rois, torch.stack([scene(generator, 6, 4), scene(generator, 6, 3)])
