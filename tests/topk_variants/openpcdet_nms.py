"""Pre-NMS selection with ``k=min(NMS_PRE_MAXSIZE, n)`` written in the call, from OpenPCDet.

Reduced from open-mmlab/OpenPCDet@8cacccec11db6f59bf6934600c9a175dae254806,
pcdet/models/model_utils/model_nms_utils.py, line 15 (``class_agnostic_nms``; line 51 is the
same): the K is a keyword argument, the cap an attribute of the NMS config (4096 in the
Waymo and nuScenes configs; 5000 here, as the other variants).
"""

import torch
from torch import nn

from _sizes import CAP, distinct_scores, size_for


class _NmsConfig:
    NMS_PRE_MAXSIZE = CAP


class ClassAgnosticSelect(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nms_config = _NmsConfig()

    def forward(self, box_scores: torch.Tensor, box_preds: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        nms_config = self.nms_config
        box_scores_nms, indices = torch.topk(box_scores, k=min(nms_config.NMS_PRE_MAXSIZE, box_scores.shape[0]))
        return box_scores_nms, box_preds[indices]


def build() -> nn.Module:
    return ClassAgnosticSelect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    n = size_for(generator)
    return distinct_scores(n, 0, generator), torch.rand(n, 7, generator=generator)
