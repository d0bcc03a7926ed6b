"""A from-scratch Faster R-CNN's ``filter_predictions``: ``torch.ops.torchvision.nms`` run class by class over
``torch.unique(pred_labels)``, the kept positions set in a mask.

Reduced from explainingai-code/FasterRCNN-PyTorch @ cf9f1db60c14f19d9e5f3ccce2dc8c4a795f8772 model/faster_rcnn.py:
670-740 (the ROI head's inference branch and ``ROIHead.filter_predictions``): softmax class scores and per-class
boxes for every proposal, ``pred_labels = torch.arange(num_classes).view(1, -1).expand_as(pred_scores)``, the
background column dropped, every (proposal, class) pair made a separate instance by ``reshape(-1)``; then the scores
over ``low_score_threshold`` kept by ``torch.where(...)[0]``, boxes smaller than ``min_size`` removed, ``keep_mask =
torch.zeros_like(pred_scores, dtype=torch.bool)``, ``for class_id in torch.unique(pred_labels):``, ``curr_indices =
torch.where(pred_labels == class_id)[0]``, ``curr_keep_indices = torch.ops.torchvision.nms(pred_boxes[curr_indices],
pred_scores[curr_indices], self.nms_threshold)``, ``keep_mask[curr_indices[curr_keep_indices]] = True``; the kept
positions sorted by score and cut to ``topK_detections``. What is reduced: the backbone, RPN and RoI pooling are one
convolution whose cells stand for the proposals, each predicting its per-class corner boxes directly (no regression
applied to proposals, no clamp to the image); ``min_size`` is 2 pixels for these small images (16 in the original).
``torch.ops.torchvision.nms`` is registered in the tests by a plain-PyTorch stand-in imported as ``torchvision``
(tests/transforms/torchvision_standin.py: greedy NMS with an ONNX ``NonMaxSuppression`` symbolic), torchvision's
compiled ops not loading with the project's CPU torch. Written here in our own words.
"""

import torch
import torchvision  # noqa: F401 - registers torch.ops.torchvision.nms, as the real module's import does
from torch import nn


class ROIHead(nn.Module):
    def __init__(self, num_classes: int = 4) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.cls_layer = nn.Conv2d(3, num_classes, 3, stride=4, padding=1)
        self.bbox_reg_layer = nn.Conv2d(3, num_classes * 4, 3, stride=4, padding=1)
        self.low_score_threshold = 0.3
        self.nms_threshold = 0.5
        self.topK_detections = 30

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        cls_scores = self.cls_layer(image)[0].flatten(1).t()
        box_pred = self.bbox_reg_layer(image)[0].flatten(1).t().reshape(-1, self.num_classes, 4)
        corner = box_pred[..., :2].sigmoid() * 32
        pred_boxes = torch.cat([corner, corner + box_pred[..., 2:].sigmoid() * 12], -1)
        pred_scores = torch.nn.functional.softmax(cls_scores, dim=-1)
        pred_labels = torch.arange(self.num_classes)
        pred_labels = pred_labels.view(1, -1).expand_as(pred_scores)
        pred_boxes = pred_boxes[:, 1:]
        pred_scores = pred_scores[:, 1:]
        pred_labels = pred_labels[:, 1:]
        pred_boxes = pred_boxes.reshape(-1, 4)
        pred_scores = pred_scores.reshape(-1)
        pred_labels = pred_labels.reshape(-1)
        pred_boxes, pred_labels, pred_scores = self.filter_predictions(pred_boxes, pred_labels, pred_scores)
        return torch.cat([pred_boxes, pred_scores[:, None], pred_labels[:, None].float()], 1)

    def filter_predictions(self, pred_boxes, pred_labels, pred_scores):
        keep = torch.where(pred_scores > self.low_score_threshold)[0]
        pred_boxes, pred_scores, pred_labels = pred_boxes[keep], pred_scores[keep], pred_labels[keep]

        min_size = 2
        ws, hs = pred_boxes[:, 2] - pred_boxes[:, 0], pred_boxes[:, 3] - pred_boxes[:, 1]
        keep = (ws >= min_size) & (hs >= min_size)
        keep = torch.where(keep)[0]
        pred_boxes, pred_scores, pred_labels = pred_boxes[keep], pred_scores[keep], pred_labels[keep]

        keep_mask = torch.zeros_like(pred_scores, dtype=torch.bool)
        for class_id in torch.unique(pred_labels):
            curr_indices = torch.where(pred_labels == class_id)[0]
            curr_keep_indices = torch.ops.torchvision.nms(pred_boxes[curr_indices],
                                                          pred_scores[curr_indices],
                                                          self.nms_threshold)
            keep_mask[curr_indices[curr_keep_indices]] = True
        keep_indices = torch.where(keep_mask)[0]
        post_nms_keep_indices = keep_indices[pred_scores[keep_indices].sort(descending=True)[1]]
        keep = post_nms_keep_indices[:self.topK_detections]
        pred_boxes, pred_scores, pred_labels = pred_boxes[keep], pred_scores[keep], pred_labels[keep]
        return pred_boxes, pred_labels, pred_scores


def build() -> nn.Module:
    torch.manual_seed(0)
    return ROIHead().eval()


def inputs(generator: torch.Generator, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, height, width, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
CALL = "for class_id in torch.unique(pred_labels):"
