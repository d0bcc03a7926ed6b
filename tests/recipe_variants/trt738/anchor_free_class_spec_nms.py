"""An anchor-free camera detector's ``class_spec_nms_``: torchvision's NMS over the rows of each of
``class_labels.unique()``, the positions taken from a range picked by the class's mask.

Reduced from UditBhaskar19/ANCHOR_FREE_OBJECT_DETECTOR_FOR_CAMERA @ b6af6003442e92cbb22df735b503a6df6368a86b
AnchorFree2DObjectDetection/modules/proposal/nms.py:8-26 (``class_spec_nms_``, the loop kept beside the offset version
``class_spec_nms`` in the same file): an empty index where there is no box, ``unique_class_labels =
class_labels.unique()`` bound before the loop, ``index_tensor = torch.arange(boxes.shape[0])``, and for each label
``class_mask = (class_labels == class_label)``, the class's rows bound to names (``class_boxes = boxes[class_mask]``,
``class_scores = scores[class_mask]``, ``class_index = index_tensor[class_mask]``), ``keep_indices =
torchvision.ops.nms(class_boxes, class_scores, iou_threshold)`` and ``keep.append(class_index[keep_indices])``;
then ``torch.concat(keep, dim=0)``. What is reduced: the detector is one convolution on one image predicting, at
each cell's centre, the distances to the box's four sides (FCOS-style, as the repository's anchor-free head) and the
class scores, thresholded before NMS. ``torchvision.ops.nms`` is replaced in the tests by a plain-PyTorch stand-in
(tests/transforms/torchvision_standin.py: greedy NMS with an ONNX ``NonMaxSuppression`` symbolic), torchvision's
compiled ops not loading with the project's CPU torch. Written here in our own words.
"""

import torch
import torchvision
from torch import nn


def class_spec_nms_(boxes, scores, class_labels, iou_threshold=0.5) -> torch.Tensor:

    if boxes.numel() == 0:
        return torch.empty((0,), dtype=torch.int64, device=boxes.device)

    unique_class_labels = class_labels.unique()
    keep = []
    index_tensor = torch.arange(boxes.shape[0])

    for class_label in unique_class_labels:
        class_mask = (class_labels == class_label)
        class_boxes = boxes[class_mask]
        class_scores = scores[class_mask]
        class_index = index_tensor[class_mask]
        keep_indices = torchvision.ops.nms(class_boxes, class_scores, iou_threshold)
        keep.append(class_index[keep_indices])

    keep = torch.concat(keep, dim=0)
    return keep


class AnchorFreeDetector(nn.Module):
    def __init__(self, classes: int = 3, score_threshold: float = 0.4, stride: int = 4) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 4 + classes, 3, stride=stride, padding=1)
        self.score_threshold, self.stride = score_threshold, stride

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        out = self.head(image)[0]
        height, width = out.shape[1:]
        ys = (torch.arange(height, dtype=image.dtype) + 0.5) * self.stride
        xs = (torch.arange(width, dtype=image.dtype) + 0.5) * self.stride
        cy, cx = ys[:, None].expand(height, width).flatten(), xs[None, :].expand(height, width).flatten()
        ltrb = out[:4].flatten(1).t().sigmoid() * 6 * self.stride
        boxes = torch.stack([cx - ltrb[:, 0], cy - ltrb[:, 1], cx + ltrb[:, 2], cy + ltrb[:, 3]], 1)
        scores, labels = out[4:].flatten(1).t().sigmoid().max(1)
        valid = scores > self.score_threshold
        boxes, scores, labels = boxes[valid], scores[valid], labels[valid]
        keep = class_spec_nms_(boxes, scores, labels, 0.5)
        return torch.cat([boxes[keep], scores[keep, None], labels[keep, None].float()], 1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return AnchorFreeDetector().eval()


def inputs(generator: torch.Generator, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, height, width, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
CALL = "for class_label in unique_class_labels:"
