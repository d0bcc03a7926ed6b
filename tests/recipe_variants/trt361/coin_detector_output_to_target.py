"""A detector's per-image NMS (one tensor of rows an image) and YOLOv5's ``output_to_target`` flattening it.

The producer is reduced from kqf/coin-detector@08455637ad013aec136a6aa508e87ea8ba764c1a detectors/inference.py:20-31,
``infer``: ``for boxes_, classes_, anchors_ in zip(boxes, classes, anchors)``, the best class by
``classes_.max(dim=-1)``, a mask of the foreground over a confidence (``(class_ids_ != background_class) &
(scores_ > min_confidence)``) applied to the boxes, scores and classes, ``batched_nms`` and one entry an image
appended to an empty list (there a tuple of boxes and classes; here one tensor of boxes, score and class, the
entry YOLOv5's ``non_max_suppression`` gives; the anchors are decoded before the loop). The caller is reduced from
ultralytics/yolov5@5081342f04fb287fc2e5f2b5a4e06752b7937b1c utils/plots.py:46-51, ``output_to_target``:
``for i, o in enumerate(output)``, the columns taken apart (there ``o[:max_det, :6].cpu().split((4, 1, 1), 1)``;
here slices, and no cap), ``j = torch.full((conf.shape[0], 1), i)`` and ``targets.append(torch.cat((j, cls, box,
conf), 1))``, then ``torch.cat(targets, 0)``. A second caller writes it as YOLOv7's comprehension
(benchmarks/real_zoo19.py's ``_ROWS``). Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


def infer(boxes: Tensor, classes: Tensor, background: int = 0, threshold: float = 0.5,
          min_confidence: float = 0.3) -> list[Tensor]:
    predictions = []
    for boxes_, classes_ in zip(boxes, classes):
        scores_, class_ids_ = classes_.max(dim=-1)
        pos = (class_ids_ != background) & (scores_ > min_confidence)
        decoded = boxes_[pos]
        scores_ = scores_[pos]
        class_ids_ = class_ids_[pos]
        selected = torchvision.ops.batched_nms(decoded, scores_, class_ids_, threshold)
        predictions.append(torch.cat([decoded[selected], scores_[selected, None], class_ids_[selected, None].float()],
                                     1))
    return predictions


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)

    def forward(self, x: Tensor) -> list[Tensor]:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2].sigmoid() * 16
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 8], -1)
        return infer(boxes, out[..., 4:].softmax(-1))


class Targets(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = Detector()

    def forward(self, x: Tensor) -> Tensor:
        targets = []
        for i, o in enumerate(self.m(x)):
            box, conf, cls = o[:, :4], o[:, 4:5], o[:, 5:6]
            j = torch.full((conf.shape[0], 1), i)
            targets.append(torch.cat((j, cls, box, conf), 1))
        return torch.cat(targets, 0)


class Comprehension(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = Detector()

    def forward(self, x: Tensor) -> Tensor:
        out = self.m(x)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Targets().eval()


def build_comprehension() -> nn.Module:
    torch.manual_seed(0)
    return Comprehension().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
