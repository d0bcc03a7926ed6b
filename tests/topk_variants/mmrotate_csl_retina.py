"""Pre-NMS selection behind ``scores.shape[0] > nms_pre > 0``, from mmrotate's CSL RetinaNet head.

Reduced from open-mmlab/mmrotate@b030f38909fc431be7ecb90772ac30da9da29bcb,
mmrotate/models/dense_heads/csl_rotated_retina_head.py, lines 439-453 (``_get_bboxes_single``):
the chain puts the size first; the best sigmoid class score picks ``nms_pre`` anchors, whose
anchors, box deltas, scores and angle classes are gathered.
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class CslRetinaSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.test_cfg = dict(nms_pre=CAP)
        self.use_sigmoid_cls = True

    def forward(self, scores: torch.Tensor, anchors: torch.Tensor, bbox_pred: torch.Tensor,
                angle_cls: torch.Tensor) -> tuple[torch.Tensor, ...]:
        cfg = self.test_cfg
        nms_pre = cfg.get('nms_pre', -1)
        if scores.shape[0] > nms_pre > 0:
            if self.use_sigmoid_cls:
                max_scores, _ = scores.max(dim=1)
            else:
                max_scores, _ = scores[:, :-1].max(dim=1)
            _, topk_inds = max_scores.topk(nms_pre)
            anchors = anchors[topk_inds, :]
            bbox_pred = bbox_pred[topk_inds, :]
            scores = scores[topk_inds, :]
            angle_cls = angle_cls[topk_inds, :]
        return scores, anchors, bbox_pred, angle_cls


def build() -> nn.Module:
    return CslRetinaSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return (distinct_scores(n, 3, generator), torch.rand(n, 5, generator=generator),
            torch.rand(n, 5, generator=generator), torch.rand(n, 8, generator=generator))
