"""yolort's ``PostProcess``: a decode helper returning boxes and scores, a multi-label pick of (candidate, class) pairs,
torchvision's ``batched_nms`` and a cap per image, one dict an image; the caller flattens the list into rows.

Reduced from yolort 0.6.3 (Zhiqiang Wang's yolov5-rt-stack, github.com/zhiqwang/yolort; the PyPI wheel, as zoo 63
unpacks it), ``yolort/models/box_head.py``: ``_decode_pred_logits`` (lines 348-357: ``scores = pred_logits[:, 5:] *
pred_logits[:, 4:5]``, ``boxes = box_convert(pred_logits[:, :4], in_fmt="cxcywh", out_fmt="xyxy")``) and
``PostProcess.forward`` (lines 386-419: ``for idx in range(batch_size)``, ``inds, labels = torch.where(scores >
self.score_thresh)``, ``boxes, scores = boxes[inds], scores[inds, labels]``, ``batched_nms``, ``keep = keep[:
self.detections_per_img]``, a dict appended). The caller is zoo 63's ``detection_rows`` (``boxes.new_full((n, 1),
index)``, the labels ``.to(boxes.dtype)``; here the image's column last). Written here in our own words: one convolution as the head, its sigmoid
as the anchors' decoded logits (yolort decodes grids and anchors level by level before this).
"""

from typing import Dict, List

import torch
import torchvision
from torch import Tensor, nn


def _decode_pred_logits(pred_logits: Tensor):
    """Each candidate's class scores (times its objectness) and corner box."""
    scores = pred_logits[:, 5:] * pred_logits[:, 4:5]
    boxes = torchvision.ops.box_convert(pred_logits[:, :4], in_fmt="cxcywh", out_fmt="xyxy")
    return boxes, scores


class Detector(nn.Module):
    def __init__(self, score_thresh: float = 0.25, nms_thresh: float = 0.5, detections_per_img: int = 4) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img

    def postprocess(self, all_pred_logits: Tensor) -> List[Dict[str, Tensor]]:
        batch_size = all_pred_logits.shape[0]
        detections: List[Dict[str, Tensor]] = []
        for idx in range(batch_size):
            pred_logits = all_pred_logits[idx]
            boxes, scores = _decode_pred_logits(pred_logits)
            inds, labels = torch.where(scores > self.score_thresh)
            boxes, scores = boxes[inds], scores[inds, labels]
            keep = torchvision.ops.batched_nms(boxes, scores, labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
            detections.append({"scores": scores, "labels": labels, "boxes": boxes})
        return detections

    def forward(self, x: Tensor) -> Tensor:
        logits = self.head(x).flatten(2).transpose(1, 2).sigmoid()  # (batch, 64 candidates, 8)
        centres = logits[..., :2] * 32
        sizes = logits[..., 2:4] * 16
        rows = []
        for index, det in enumerate(self.postprocess(torch.cat([centres, sizes, logits[..., 4:]], -1))):
            boxes = det["boxes"]
            rows.append(torch.cat([boxes, det["scores"][:, None], det["labels"][:, None].to(boxes.dtype),
                                   boxes.new_full((boxes.shape[0], 1), index)], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "n"}}
