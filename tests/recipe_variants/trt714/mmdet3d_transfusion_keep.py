"""BEVFusion's TransFusion head, without NMS for a task, keeps every box of that task's classes:
``task_mask`` adds up ``labels == cls_idx`` over the task's classes and is made ``.bool()``, then
``task_keep_indices = torch.arange(task_mask.sum())`` numbers its boxes, and those numbers index
``torch.where(task_mask != 0)[0]`` to mark the kept boxes.

Reduced from open-mmlab/mmdetection3d at commit fe25f7a51d36e3702f961e198894580d83c4387b,
projects/BEVFusion/bevfusion/transfusion_head.py, ``TransFusionHead.get_bboxes`` (lines 430-475:
the task loop, ``task_mask``, the ``else`` branch taken when a task's radius is not positive).
Written here in our own words: one sample, two tasks with fixed classes and no NMS (the circle
and BEV NMS branches are CUDA ops outside this recipe), and the kept scores as the one output.
"""

import torch
from torch import nn


class TransFusionKeep(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.tasks = [dict(indices=[0]), dict(indices=[1, 2])]

    def forward(self, scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        keep_mask = torch.zeros_like(scores)
        for task in self.tasks:
            task_mask = torch.zeros_like(scores)
            for cls_idx in task["indices"]:
                task_mask += labels == cls_idx
            task_mask = task_mask.bool()
            task_keep_indices = torch.arange(task_mask.sum())
            if task_keep_indices.shape[0] != 0:
                keep_indices = torch.where(task_mask != 0)[0][task_keep_indices]
                keep_mask[keep_indices] = 1
        return scores * keep_mask


def build() -> nn.Module:
    return TransFusionKeep()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(8, generator=generator), torch.tensor([0, 3, 1, 2, 3, 0, 4, 2])


DYNAMIC = {"scores": {0: "boxes"}, "labels": {0: "boxes"}}
