"""Holocron's YOLO post-processing (a list of one dict an image) and a caller that makes it rows.

Reduced from pylocron 0.3.0 (frgfm/Holocron's package on PyPI), holocron/models/detection/yolo.py:196-211,
``_post_process``: ``for idx in range(boxes.shape[0])`` takes each candidate's best class with
``b_scores[idx].max(dim=-1)``, multiplies the objectness in place (``scores *= b_o[idx]``), keeps the scores over
a threshold with a mask used beside the image's index (``boxes[idx, score_mask]``), runs class-wise ``batched_nms``
with its threshold by keyword and appends ``{"boxes": ..., "scores": ..., "labels": ...}`` to an annotated empty
list it returns. The caller is benchmarks/real_zoo22.py's ``_HOLO_ROWS`` (each dict's boxes, score, label and the
image's index as rows: ``torch.full_like(det['scores'][:, None], i)``). Written here in our own words, with a
one-convolution head in place of the Darknet body and ``torchvision.ops.batched_nms`` by attribute.
"""

import torch
import torchvision
from torch import Tensor, nn


def post_process(boxes: Tensor, objectness: Tensor, class_scores: Tensor, iou: float = 0.5,
                 score_floor: float = 0.05) -> list[dict[str, Tensor]]:
    boxes = boxes.float()
    objectness = objectness.to(dtype=boxes.dtype)
    class_scores = class_scores.to(dtype=boxes.dtype)
    detections: list[dict[str, Tensor]] = []
    for idx in range(boxes.shape[0]):
        scores, labels = class_scores[idx].max(dim=-1)
        scores *= objectness[idx]
        score_mask = scores >= score_floor
        coords, scores, labels = boxes[idx, score_mask], scores[score_mask], labels[score_mask]
        kept = torchvision.ops.batched_nms(coords, scores, labels, iou_threshold=iou)
        detections.append({"boxes": coords[kept], "scores": scores[kept], "labels": labels[kept]})
    return detections


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)

    def forward(self, x: Tensor) -> list[dict[str, Tensor]]:
        out = self.head(x).flatten(2).transpose(1, 2)
        centre = out[..., :2].sigmoid()
        size = out[..., 2:4].sigmoid() * 0.5
        boxes = torch.cat([centre - size / 2, centre + size / 2], -1).clamp(0, 1)
        return post_process(boxes, out[..., 4].sigmoid(), out[..., 5:].softmax(-1), 0.5, 0.2)


class Rows(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = Detector()

    def forward(self, x: Tensor) -> Tensor:
        rows = []
        for i, det in enumerate(self.m(x)):
            rows.append(torch.cat([det['boxes'], det['scores'][:, None], det['labels'][:, None].to(x.dtype),
                                   torch.full_like(det['scores'][:, None], i)], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Rows().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
