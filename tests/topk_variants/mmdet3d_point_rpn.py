"""Pre-NMS selection with K = min(cap, n) through a local name, from mmdet3d's PointRPNHead.

Reduced from open-mmlab/mmdetection3d@fe25f7a51d36e3702f961e198894580d83c4387b,
mmdet3d/models/dense_heads/point_rpn_head.py, lines 368-369 (``class_agnostic_nms``): the
K is Python's ``min`` of a config's ``nms_pre`` and the number of candidates, assigned to a
local first, then ``torch.topk(obj_scores, k=topk)`` picks the candidates to gather.
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class _NmsCfg:
    nms_pre = CAP


class PointRpnSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.test_cfg = _NmsCfg()

    def forward(self, obj_scores: torch.Tensor, bbox: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        nms_cfg = self.test_cfg
        topk = min(nms_cfg.nms_pre, obj_scores.shape[0])
        obj_scores_nms, indices = torch.topk(obj_scores, k=topk)
        return obj_scores_nms, bbox[indices]


def build() -> nn.Module:
    return PointRpnSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return distinct_scores(n, 0, generator), torch.rand(n, 7, generator=generator)
