"""Holocron's earlier YOLOv4 post-processing: a per-image loop whose NMS runs under ``if torch.any(...)``.

Reduced from frgfm/Holocron@cbe2ac60cf9824c116f6a0b282fa47af095179d6 holocron/models/detection/yolov4.py:310-336:
each image starts from empty boxes, scores and labels, and only ``if torch.any(b_o[idx] >= 0.5)`` filters the
candidates by objectness, takes the best class, thresholds, clamps and runs ``nms``; one dict an image is appended.
The branch is decided image by image on the data: TRT360 names the loop with its manual step and rewrites nothing.
Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def post_process(boxes: Tensor, objectness: Tensor, class_scores: Tensor) -> list[dict[str, Tensor]]:
    detections = []
    for idx in range(objectness.shape[0]):
        coords = torch.zeros((0, 4))
        scores = torch.zeros(0)
        labels = torch.zeros(0, dtype=torch.long)
        if torch.any(objectness[idx] >= 0.5):
            coords = boxes[idx, objectness[idx] >= 0.5]
            scores, labels = class_scores[idx, objectness[idx] >= 0.5].max(dim=-1)
            kept = torchvision.ops.nms(coords, scores, 0.5)
            coords, scores, labels = coords[kept], scores[kept], labels[kept]
        detections.append({"boxes": coords, "scores": scores, "labels": labels})
    return detections


class Rows(nn.Module):
    def forward(self, boxes: Tensor, objectness: Tensor, class_scores: Tensor) -> Tensor:
        rows = []
        for i, det in enumerate(post_process(boxes, objectness, class_scores)):
            rows.append(torch.cat([det['boxes'], torch.full_like(det['scores'][:, None], i)], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    return Rows().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    corner = torch.rand(2, 20, 2, generator=generator)
    boxes = torch.cat([corner, corner + 0.2], -1)
    return boxes, torch.rand(2, 20, generator=generator), torch.rand(2, 20, 3, generator=generator)


DYNAMIC = {"boxes": {0: "batch"}, "objectness": {0: "batch"}, "class_scores": {0: "batch"}}
