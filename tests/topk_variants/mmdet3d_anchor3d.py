"""Pre-NMS selection behind ``nms_pre > 0 and scores.shape[0] > nms_pre``, from mmdet3d.

Reduced from open-mmlab/mmdetection3d@fe25f7a51d36e3702f961e198894580d83c4387b,
mmdet3d/models/dense_heads/base_3d_dense_head.py, lines 327-337 (``_predict_by_feat_single``):
``nms_pre`` comes from the test config with ``cfg.get``; when there are more candidates, the
best class score of each picks ``nms_pre`` of them (a nested ``if`` chooses sigmoid or
softmax scores) and four tensors are gathered with the indices; otherwise all are kept.
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class Anchor3DSelect(nn.Module):
    def __init__(self, use_sigmoid_cls: bool = True) -> None:
        super().__init__()
        self.test_cfg = dict(nms_pre=CAP)
        self.use_sigmoid_cls = use_sigmoid_cls

    def forward(self, scores: torch.Tensor, priors: torch.Tensor, bbox_pred: torch.Tensor,
                dir_cls_score: torch.Tensor) -> tuple[torch.Tensor, ...]:
        cfg = self.test_cfg
        nms_pre = cfg.get('nms_pre', -1)
        if nms_pre > 0 and scores.shape[0] > nms_pre:
            if self.use_sigmoid_cls:
                max_scores, _ = scores.max(dim=1)
            else:
                max_scores, _ = scores[:, :-1].max(dim=1)
            _, topk_inds = max_scores.topk(nms_pre)
            priors = priors[topk_inds, :]
            bbox_pred = bbox_pred[topk_inds, :]
            scores = scores[topk_inds, :]
            dir_cls_score = dir_cls_score[topk_inds]
        return scores, priors, bbox_pred, dir_cls_score


def build() -> nn.Module:
    return Anchor3DSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return (distinct_scores(n, 3, generator), torch.rand(n, 7, generator=generator),
            torch.rand(n, 7, generator=generator), torch.randint(0, 2, (n,), generator=generator))
