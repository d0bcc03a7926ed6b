"""Pre-NMS selection behind ``0 < nms_pre < scores.shape[0]``, from mmrotate's RepPoints heads.

Reduced from open-mmlab/mmrotate@b030f38909fc431be7ecb90772ac30da9da29bcb,
mmrotate/models/dense_heads/oriented_reppoints_head.py, lines 1154-1163 (``_get_bboxes_single``;
rotated_reppoints_head.py:1138 and sam_reppoints_head.py:807 are the same): a chained
comparison guards the top-k of the best foreground score (softmax scores: the last column is
the background) and the gathers of points, point predictions and scores.
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class RepPointsSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.test_cfg = dict(nms_pre=CAP)
        self.use_sigmoid_cls = False

    def forward(self, scores: torch.Tensor, points: torch.Tensor,
                points_pred: torch.Tensor) -> tuple[torch.Tensor, ...]:
        nms_pre = self.test_cfg.get('nms_pre', -1)
        if 0 < nms_pre < scores.shape[0]:
            if self.use_sigmoid_cls:
                max_scores, _ = scores.max(dim=1)
            else:
                max_scores, _ = scores[:, :-1].max(dim=1)
            _, topk_inds = max_scores.topk(nms_pre)
            points = points[topk_inds, :]
            points_pred = points_pred[topk_inds, :]
            scores = scores[topk_inds, :]
        return scores, points, points_pred


def build() -> nn.Module:
    return RepPointsSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return distinct_scores(n, 4, generator), torch.rand(n, 2, generator=generator), torch.rand(n, 18, generator=generator)
