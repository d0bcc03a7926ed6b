"""PointRCNN's proposal target layer drops the zero rows a batch pads each scene's ground-truth boxes with: from
the last row, ``while cur_gt[k].sum() == 0: k -= 1``, then ``cur_gt = cur_gt[:k + 1]``, before the boxes are
matched to the proposals. A scan, as MONAI's and fastMRI's k-space centre searches are, but its test is a function
of the row at the index (its sum compared with zero), not the element itself.

Reduced from sshaoshuai/PointRCNN at commit 1d0dee91262b970f460135252049112d80259ca0 (2020-08-03),
lib/rpn/proposal_target_layer.py, ``ProposalTargetLayer.sample_rois_for_rcnn`` (lines 78-106: per scene, the
proposals and the padded gt boxes, ``k = cur_gt.__len__() - 1``, the loop at lines 99-100, the trim at line 101,
the 3-D IoU of the proposals with the kept boxes at line 104 and ``torch.max(iou3d, dim=1)`` at line 106). In our
own words: the rotated 3-D IoU (a CUDA op, lib/utils/iou3d/iou3d_utils.py) is an overlap of the boxes' centres and
sizes in bird's-eye view, axis-aligned; the sampling of foreground and background proposals that follows (random)
is left out: each proposal's best overlap and its matched box are the outputs. (In PointRCNN this runs while
training the second stage; here it is the model.)
"""

from typing import Tuple

import torch
from torch import nn

DYNAMIC: dict = {}


def bev_overlap(boxes_a: torch.Tensor, boxes_b: torch.Tensor) -> torch.Tensor:
    """Axis-aligned overlap in bird's-eye view (x, z centre; w, l size) of each box of ``a`` with each of ``b``."""
    a_centre, a_size = boxes_a[:, None, [0, 2]], boxes_a[:, None, [4, 5]]
    b_centre, b_size = boxes_b[None, :, [0, 2]], boxes_b[None, :, [4, 5]]
    a_lo, a_hi = a_centre - a_size / 2, a_centre + a_size / 2
    b_lo, b_hi = b_centre - b_size / 2, b_centre + b_size / 2
    inter = (torch.min(a_hi, b_hi) - torch.max(a_lo, b_lo)).clamp(min=0).prod(-1)
    area_a = boxes_a[:, None, 4] * boxes_a[:, None, 5]
    area_b = boxes_b[None, :, 4] * boxes_b[None, :, 5]
    return inter / (area_a + area_b - inter).clamp(min=1e-6)


class ProposalTargetLayer(nn.Module):
    def forward(self, roi_boxes3d: torch.Tensor, gt_boxes3d: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.sample_rois_for_rcnn(roi_boxes3d, gt_boxes3d)

    def sample_rois_for_rcnn(self, roi_boxes3d, gt_boxes3d):
        batch_size = roi_boxes3d.size(0)
        batch_roi_iou = gt_boxes3d.new_zeros(batch_size, roi_boxes3d.size(1))
        batch_gt_of_rois = gt_boxes3d.new_zeros(batch_size, roi_boxes3d.size(1), 7)
        for idx in range(batch_size):
            cur_roi, cur_gt = roi_boxes3d[idx], gt_boxes3d[idx]

            k = cur_gt.__len__() - 1
            while cur_gt[k].sum() == 0:
                k -= 1
            cur_gt = cur_gt[:k + 1]

            iou3d = bev_overlap(cur_roi, cur_gt[:, 0:7])
            max_overlaps, gt_assignment = torch.max(iou3d, dim=1)
            batch_roi_iou[idx] = max_overlaps
            batch_gt_of_rois[idx] = cur_gt[gt_assignment, 0:7]
        return batch_roi_iou, batch_gt_of_rois


def build() -> nn.Module:
    return ProposalTargetLayer()


def scene(generator: torch.Generator, boxes: int, valid: int, width: int = 8) -> torch.Tensor:
    """``boxes`` rows of (x, y, z, h, w, l, ry, class), the first ``valid`` boxes, the rest zero padding."""
    rows = torch.rand(boxes, width, generator=generator) * 4 + 0.5
    rows[valid:] = 0
    return rows


def inputs(generator: torch.Generator) -> Tuple[torch.Tensor, ...]:
    rois = torch.rand(2, 5, 7, generator=generator) * 4 + 0.5
    return rois, torch.stack([scene(generator, 6, 4), scene(generator, 6, 3)])
