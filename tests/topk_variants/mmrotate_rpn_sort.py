"""Pre-NMS selection by a full sort read through ``[:nms_pre]``, from mmrotate's rotated RPN head.

Reduced from open-mmlab/mmrotate@b030f38909fc431be7ecb90772ac30da9da29bcb,
mmrotate/models/dense_heads/rotated_rpn_head.py, lines 485-492 (``_get_bboxes_single``; mmdet's
RPN heads write the same "sort is faster than topk"): ``cfg.nms_pre`` is read on a config
object in the guard and in the slices; the sort exports as a TopK of every candidate.
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class _Cfg:
    nms_pre = CAP


class RotatedRpnSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.test_cfg = _Cfg()

    def forward(self, scores: torch.Tensor, rpn_bbox_pred: torch.Tensor,
                anchors: torch.Tensor) -> tuple[torch.Tensor, ...]:
        cfg = self.test_cfg
        if cfg.nms_pre > 0 and scores.shape[0] > cfg.nms_pre:
            # sort is faster than topk
            ranked_scores, rank_inds = scores.sort(descending=True)
            topk_inds = rank_inds[:cfg.nms_pre]
            scores = ranked_scores[:cfg.nms_pre]
            rpn_bbox_pred = rpn_bbox_pred[topk_inds, :]
            anchors = anchors[topk_inds, :]
        return scores, rpn_bbox_pred, anchors


def build() -> nn.Module:
    return RotatedRpnSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return distinct_scores(n, 0, generator), torch.rand(n, 5, generator=generator), torch.rand(n, 5, generator=generator)
