"""owndet's ``class_aware_nms``: its own greedy ``nms`` run class by class over ``torch.unique(labels)``.

Reduced from the owndet wheel's ``utils/nms.py`` (owndet/owndet @ pypi:owndet==0.1.0, lines 16-60; zoo 91's OwnDet
models): ``nms`` sorts the scores (``torch.argsort(..., descending=True, stable=True)``) and keeps ``order[0]`` while
``order.numel() > 0``, dropping the candidates whose IoU (the library's ``box_iou``) with it exceeds the threshold;
``class_aware_nms`` returns an empty index where there is no box, then ``for label in torch.unique(labels,
sorted=True):`` takes ``torch.nonzero(labels == label, as_tuple=False).squeeze(1)``, runs ``nms`` on those rows and
appends ``class_indices[local_keep]``, concatenates the list and sorts the kept positions by score. What is reduced:
the network is one convolution on one image decoded into corner boxes and class scores (the library's grid decoding
and per-image loops are left out: this variant is the class loop), the input validation is left out, and the IoU is
written inline. Written here in our own words.
"""

import torch
from torch import nn


def box_iou(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    area_first = (first[:, 2] - first[:, 0]) * (first[:, 3] - first[:, 1])
    area_second = (second[:, 2] - second[:, 0]) * (second[:, 3] - second[:, 1])
    low = torch.max(first[:, None, :2], second[None, :, :2])
    high = torch.min(first[:, None, 2:], second[None, :, 2:])
    inter = (high - low).clamp(min=0).prod(2)
    return inter / (area_first[:, None] + area_second[None, :] - inter)


def nms(boxes: torch.Tensor, scores: torch.Tensor, iou_threshold: float = 0.5) -> torch.Tensor:
    if boxes.shape[0] == 0:
        return torch.empty(0, device=boxes.device, dtype=torch.long)
    order = torch.argsort(scores, descending=True, stable=True)
    kept = []
    while order.numel() > 0:
        current = order[0]
        kept.append(current)
        if order.numel() == 1:
            break
        remaining = order[1:]
        overlaps = box_iou(boxes[current].unsqueeze(0), boxes[remaining]).squeeze(0)
        order = remaining[overlaps <= iou_threshold]
    return torch.stack(kept).to(dtype=torch.long)


def class_aware_nms(boxes: torch.Tensor, scores: torch.Tensor, labels: torch.Tensor,
                    iou_threshold: float = 0.5) -> torch.Tensor:
    if boxes.shape[0] == 0:
        return torch.empty(0, device=boxes.device, dtype=torch.long)
    kept_per_class = []
    for label in torch.unique(labels, sorted=True):
        class_indices = torch.nonzero(labels == label, as_tuple=False).squeeze(1)
        local_keep = nms(boxes[class_indices], scores[class_indices], iou_threshold)
        kept_per_class.append(class_indices[local_keep])
    kept = torch.cat(kept_per_class)
    global_order = torch.argsort(scores[kept], descending=True, stable=True)
    return kept[global_order]


class Detector(nn.Module):
    def __init__(self, classes: int = 3, threshold: float = 0.3) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 4 + classes, 3, stride=4, padding=1)
        self.threshold = threshold

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        out = self.head(image)[0].flatten(1).t()
        corner = out[:, :2].sigmoid() * 32
        boxes = torch.cat([corner, corner + out[:, 2:4].sigmoid() * 12], 1)
        scores, labels = out[:, 4:].sigmoid().max(1)
        keep = scores > self.threshold
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        kept = class_aware_nms(boxes, scores, labels, 0.5)
        return torch.cat([boxes[kept], scores[kept, None], labels[kept, None].float()], 1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, height, width, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
CALL = "for label in torch.unique(labels, sorted=True):"
