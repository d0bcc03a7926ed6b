"""detectron2's Fast R-CNN inference: a 2-D score mask (``R x K``) selecting from per-class boxes
(``R x K x 4``) and from the scores themselves.

Reduced from facebookresearch/detectron2 @ 02b5c4e295e990042a714712c21dc79b731e8833,
detectron2/modeling/roi_heads/fast_rcnn.py:142-159 (``fast_rcnn_inference_single_image``:
``scores = scores[:, :-1]``, ``boxes = boxes.view(-1, num_bbox_reg_classes, 4)``, ``filter_mask =
scores > score_thresh``, ``boxes = boxes[filter_mask]``, ``scores = scores[filter_mask]``), written here
in our own words; the finite-value guard before it, the box clipping and the NMS after it are left out.
"""

import torch
from torch import nn


class FastRCNNInference(nn.Module):
    def __init__(self, score_thresh: float = 0.5) -> None:
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, scores):
        score_thresh = self.score_thresh
        scores = scores[:, :-1]
        num_bbox_reg_classes = boxes.shape[1] // 4
        boxes = boxes.view(-1, num_bbox_reg_classes, 4)
        filter_mask = scores > score_thresh
        boxes = boxes[filter_mask]
        scores = scores[filter_mask]
        return torch.cat((boxes, scores[:, None]), 1)


def build() -> nn.Module:
    return FastRCNNInference()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(6, 12, generator=generator), torch.rand(6, 4, generator=generator))


DYNAMIC = {"boxes": {0: "rois"}, "scores": {0: "rois"}}
