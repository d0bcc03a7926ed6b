"""torchvision's ``_batched_nms_vanilla`` runs NMS class by class: ``for class_id in
torch.unique(idxs)``, the boxes of that class found with ``torch.where(idxs == class_id)[0]``,
the kept ones marked in a mask, and the kept indices sorted by score. The trip count is the
number of distinct classes present, so the library scripts the function when tracing
(``@torch.jit._script_if_tracing``), the guidance's recipe for a dependent loop, by hand.

Reduced from pytorch/vision at commit 01b12c69834e344157469cea63cc74dd88cafd71,
torchvision/ops/boxes.py, ``_batched_nms_vanilla`` (the function after
``_batched_nms_coordinate_trick``; torchvision says it is based on Detectron2's). Written here
in our own words: ``torchvision.ops.nms`` per class (a compiled op) becomes keeping the class's
highest-scoring box; the decorator, the loop and the selection around it are kept.
"""

import torch
from torch import Tensor, nn


@torch.jit._script_if_tracing
def _batched_nms_vanilla(boxes: Tensor, scores: Tensor, idxs: Tensor, iou_threshold: float) -> Tensor:
    keep_mask = torch.zeros_like(scores, dtype=torch.bool)
    for class_id in torch.unique(idxs):
        curr_indices = torch.where(idxs == class_id)[0]
        curr_keep_indices = scores[curr_indices].argmax().unsqueeze(0)
        keep_mask[curr_indices[curr_keep_indices]] = True
    keep_indices = torch.where(keep_mask)[0]
    return keep_indices[scores[keep_indices].sort(descending=True)[1]]


class BatchedNMS(nn.Module):
    def forward(self, boxes: Tensor, scores: Tensor, idxs: Tensor) -> Tensor:
        return _batched_nms_vanilla(boxes, scores, idxs, 0.5)


def build() -> nn.Module:
    return BatchedNMS()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(6, 4, generator=generator), torch.rand(6, generator=generator), torch.tensor([0, 2, 0, 2, 2, 0])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}, "idxs": {0: "boxes"}}
