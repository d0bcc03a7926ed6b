"""detectron2's ``batched_nms``: torchvision's NMS run class by class over ``torch.unique(idxs).cpu().tolist()``.

Reduced from facebookresearch/detectron2 @ 61457a0178939ec8f7ce130fcb733a5a5d47df9f detectron2/layers/nms.py:10-30
(``batched_nms``, the form of 2020-2021; the first commit's loop, 989f52d6, is the same without the annotation) and its
caller ``fast_rcnn_inference_single_image`` (detectron2/modeling/roi_heads/fast_rcnn.py:118-171 at that commit). The
loop: ``result_mask = scores.new_zeros(scores.size(), dtype=torch.bool)``, ``for id in torch.jit.annotate(List[int],
torch.unique(idxs).cpu().tolist()):`` (the class ids as Python ints, annotated for the scripting compiler),
``mask = (idxs == id).nonzero().view(-1)``, ``keep = nms(boxes[mask], scores[mask], iou_threshold)``,
``result_mask[mask[keep]] = True``; then ``result_mask.nonzero().view(-1)`` sorted by score. The caller drops the
background column (``scores[:, :-1]``), picks ``filter_mask = scores > score_thresh`` over every (box, class) pair of
the per-class boxes (``R x C x 4``), labels each pick by ``filter_inds[:, 1]``, and keeps the first
``topk_per_image``. What is reduced: in detectron2 the loop runs only from 40000 boxes on (below that
``box_ops.batched_nms``); here it runs at every count (this variant is the loop); the network is one convolution on
one image, the boxes' clipping and the ``Instances`` wrapper are left out. ``nms`` is torchvision's, which the tests
replace by a plain-PyTorch stand-in (tests/transforms/torchvision_standin.py: greedy NMS with an ONNX
``NonMaxSuppression`` symbolic), torchvision's compiled ops not loading with the project's CPU torch. Written here in
our own words.
"""

from typing import List

import torch
from torch import nn
from torchvision.ops import nms


def batched_nms(boxes: torch.Tensor, scores: torch.Tensor, idxs: torch.Tensor, iou_threshold: float):
    assert boxes.shape[-1] == 4
    result_mask = scores.new_zeros(scores.size(), dtype=torch.bool)
    for id in torch.jit.annotate(List[int], torch.unique(idxs).cpu().tolist()):
        mask = (idxs == id).nonzero().view(-1)
        keep = nms(boxes[mask], scores[mask], iou_threshold)
        result_mask[mask[keep]] = True
    keep = result_mask.nonzero().view(-1)
    keep = keep[scores[keep].argsort(descending=True)]
    return keep


class BoxHead(nn.Module):
    """Per-class boxes and class scores (the last class the background) for every cell, as a Fast R-CNN box
    predictor gives them for every proposal."""

    def __init__(self, classes: int = 3, score_thresh: float = 0.35, nms_thresh: float = 0.5,
                 topk_per_image: int = 40) -> None:
        super().__init__()
        self.classes = classes
        self.predictor = nn.Conv2d(3, classes * 4 + classes + 1, 3, stride=4, padding=1)
        self.score_thresh, self.nms_thresh, self.topk_per_image = score_thresh, nms_thresh, topk_per_image

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        out = self.predictor(image)[0].flatten(1).t()
        corner = out[:, : self.classes * 2].sigmoid().reshape(-1, self.classes, 2) * 32
        size = out[:, self.classes * 2: self.classes * 4].sigmoid().reshape(-1, self.classes, 2) * 12
        boxes = torch.cat([corner, corner + size], 2)  # R x C x 4
        scores = out[:, self.classes * 4:].softmax(1)[:, :-1]
        filter_mask = scores > self.score_thresh
        filter_inds = filter_mask.nonzero()
        boxes = boxes[filter_mask]
        scores = scores[filter_mask]
        keep = batched_nms(boxes, scores, filter_inds[:, 1], self.nms_thresh)
        keep = keep[: self.topk_per_image]
        boxes, scores, filter_inds = boxes[keep], scores[keep], filter_inds[keep]
        return torch.cat([boxes, scores[:, None], filter_inds.float()], 1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return BoxHead().eval()


def inputs(generator: torch.Generator, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, height, width, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
CALL = "for id in torch.jit.annotate(List[int], torch.unique(idxs).cpu().tolist()):"
