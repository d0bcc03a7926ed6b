"""PyTorch-YOLOv3's ``non_max_suppression`` merges, not only drops: ``while detections.size(0):``
the boxes of the first detection's class that overlap it more than ``nms_thres`` form ``invalid
= large_overlap & label_match``; their confidence-weighted mean replaces the first box, which is
kept, and ``detections = detections[~invalid]`` goes on with the rest. The trip count is the size
of a boolean selection whose mask is held in locals, and the condition is a size's truth.

Reduced from eriklindernoren/PyTorch-YOLOv3 at commit 5cb710a6b43e2044c9434525cbd5cc104d5a40ce,
utils/utils.py, ``non_max_suppression`` (lines 235-273; the loop at 259-271) and ``bbox_iou``
(lines 202-232). Written here in our own words: one image instead of a batch (the per-image loop,
the list of ``None`` outputs and the centre-to-corner conversion go), the result is returned
(the stacked kept boxes, or the emptied ``detections`` where none is kept), and ``bbox_iou`` keeps
its corner-coordinate branch only. The confidence filter, the sort, the loop and its unannotated
parameters with number defaults are kept. Before, TRT104 did not report the loop: a mask held in
a local (``~invalid``) was not read as a boolean selection. The parameters have no annotations:
the tensors the masks compare show in a recorded run (migrate's facts), not in the code alone.
"""

import torch
from torch import nn


def bbox_iou(box1: torch.Tensor, box2: torch.Tensor) -> torch.Tensor:
    b1_x1, b1_y1, b1_x2, b1_y2 = box1[:, 0], box1[:, 1], box1[:, 2], box1[:, 3]
    b2_x1, b2_y1, b2_x2, b2_y2 = box2[:, 0], box2[:, 1], box2[:, 2], box2[:, 3]
    inter_w = torch.clamp(torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1) + 1, min=0)
    inter_h = torch.clamp(torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1) + 1, min=0)
    inter_area = inter_w * inter_h
    b1_area = (b1_x2 - b1_x1 + 1) * (b1_y2 - b1_y1 + 1)
    b2_area = (b2_x2 - b2_x1 + 1) * (b2_y2 - b2_y1 + 1)
    return inter_area / (b1_area + b2_area - inter_area + 1e-16)


def non_max_suppression(image_pred, conf_thres=0.5, nms_thres=0.4):
    image_pred = image_pred[image_pred[:, 4] >= conf_thres]
    score = image_pred[:, 4] * image_pred[:, 5:].max(1)[0]
    image_pred = image_pred[(-score).argsort()]
    class_confs, class_preds = image_pred[:, 5:].max(1, keepdim=True)
    detections = torch.cat((image_pred[:, :5], class_confs.float(), class_preds.float()), 1)
    keep_boxes = []
    while detections.size(0):
        large_overlap = bbox_iou(detections[0, :4].unsqueeze(0), detections[:, :4]) > nms_thres
        label_match = detections[0, -1] == detections[:, -1]
        invalid = large_overlap & label_match
        weights = detections[invalid, 4:5]
        detections[0, :4] = (weights * detections[invalid, :4]).sum(0) / weights.sum()
        keep_boxes += [detections[0]]
        detections = detections[~invalid]
    if keep_boxes:
        return torch.stack(keep_boxes)
    return detections


class Detect(nn.Module):
    def forward(self, prediction: torch.Tensor) -> torch.Tensor:
        return non_max_suppression(prediction, 0.5, 0.4)


def build() -> nn.Module:
    return Detect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # rows (x1, y1, x2, y2, objectness, three class scores): two overlapping boxes of class 0
    # merge into one, the third box is another class: two kept
    return (torch.tensor([[0.0, 0.0, 10.0, 10.0, 0.9, 0.8, 0.1, 0.1],
                          [1.0, 1.0, 11.0, 11.0, 0.8, 0.7, 0.2, 0.1],
                          [0.0, 0.0, 10.0, 10.0, 0.7, 0.1, 0.9, 0.0],
                          [3.0, 3.0, 4.0, 4.0, 0.2, 0.5, 0.5, 0.5]]),)


DYNAMIC = {"prediction": {0: "boxes"}}
