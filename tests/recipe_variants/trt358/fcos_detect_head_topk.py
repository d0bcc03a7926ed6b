"""FCOS's detection head before its NMS: each image's top-k candidates gathered in a loop over the
batch and stacked.

Reduced from zhenghao977/FCOS-PyTorch-37.2AP at commit 2bfa4b6ca57358f52f7bc7b44f506608e99894e6,
model/fcos.py lines 64-101 (``DetectHead.forward``: sigmoid scores, ``torch.sqrt`` of score times
centerness, ``max_num=min(self.max_detection_boxes_num,cls_scores.shape[-1])``, ``torch.topk``, then
lines 90-99, ``for batch in range(cls_scores.shape[0]): _cls_scores.append(cls_scores[batch][topk_ind[batch]])``
for scores, classes and boxes, each list ``torch.stack(..., dim=0)``) and ``_coords2boxes`` (lines
174-183). Written here in our own words: the head's outputs are the inputs (already flattened over the
feature levels), the coordinates one row of points, and the NMS after the top-k is left out.
"""

import torch
from torch import nn


class TopkHead(nn.Module):
    def __init__(self, max_boxes: int = 12) -> None:
        super().__init__()
        self.max_boxes = max_boxes

    def forward(self, cls_logits, cnt_logits, reg_preds):
        cls_preds = cls_logits.sigmoid()
        cnt_preds = cnt_logits.sigmoid()
        cls_scores, cls_classes = torch.max(cls_preds, dim=-1)
        cls_scores = torch.sqrt(cls_scores * cnt_preds[..., 0])
        cls_classes = cls_classes + 1
        coords = torch.arange(reg_preds.shape[1], dtype=reg_preds.dtype)[:, None].repeat(1, 2) * 8.0
        boxes = torch.cat([coords[None] - reg_preds[..., :2], coords[None] + reg_preds[..., 2:]], dim=-1)
        max_num = min(self.max_boxes, cls_scores.shape[-1])
        topk_ind = torch.topk(cls_scores, max_num, dim=-1, largest=True, sorted=True)[1]
        _cls_scores = []
        _cls_classes = []
        _boxes = []
        for batch in range(cls_scores.shape[0]):
            _cls_scores.append(cls_scores[batch][topk_ind[batch]])
            _cls_classes.append(cls_classes[batch][topk_ind[batch]])
            _boxes.append(boxes[batch][topk_ind[batch]])
        cls_scores_topk = torch.stack(_cls_scores, dim=0)
        cls_classes_topk = torch.stack(_cls_classes, dim=0)
        boxes_topk = torch.stack(_boxes, dim=0)
        return cls_scores_topk, cls_classes_topk, boxes_topk


def build() -> nn.Module:
    return TopkHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 40, 3, generator=generator), torch.randn(2, 40, 1, generator=generator),
            torch.rand(2, 40, 4, generator=generator) * 16)


DYNAMIC = {"cls_logits": {0: "b"}, "cnt_logits": {0: "b"}, "reg_preds": {0: "b"}}
