"""Lightning-Bolts' YOLO ``process_detections``: a function of one image defined inside the method, called image by
image in a list comprehension over the batch, each image's (candidate, class) pairs over the threshold suppressed by
``batched_nms`` and capped, one dict an image.

Reduced from Lightning-Universe/lightning-bolts (Apache-2.0), release 0.7.0,
pl_bolts/models/detection/yolo/yolo_module.py:369-383 (``YOLO.process_detections``): ``def process(boxes,
confidences, classprobs)`` multiplies the class probabilities by the confidence, takes the pairs of the mask with
``(scores > t).nonzero().T``, runs ``batched_nms`` and keeps ``keep[: self.detections_per_image]``; the method returns
``[process(p[..., :4], p[..., 4], p[..., 5:]) for p in preds]``. The caller flattens the dicts into rows with the
image's index, as benchmarks/real_zoo77.py's ``Detections`` wrapper does (the library's ``predict_step`` returns the
list). The network here is a small convolution in place of the YOLO layers. Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


class Detector(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.confidence_threshold = 0.2
        self.nms_threshold = 0.4
        self.detections_per_image = 4

    def network(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        centre = out[..., :2].sigmoid() * 32
        size = out[..., 2:4].sigmoid() * 12
        return torch.cat([centre - size / 2, centre + size / 2, out[..., 4:].sigmoid()], -1)

    def process_detections(self, preds: Tensor) -> list:
        def process(boxes: Tensor, confidences: Tensor, classprobs: Tensor) -> dict:
            scores = classprobs * confidences[:, None]
            idxs, labels = (scores > self.confidence_threshold).nonzero().T
            boxes = boxes[idxs]
            scores = scores[idxs, labels]
            keep = torchvision.ops.batched_nms(boxes, scores, labels, self.nms_threshold)
            keep = keep[: self.detections_per_image]
            return {"boxes": boxes[keep], "scores": scores[keep], "labels": labels[keep]}

        return [process(p[..., :4], p[..., 4], p[..., 5:]) for p in preds]

    def forward(self, x: Tensor) -> Tensor:
        rows = []
        for index, found in enumerate(self.process_detections(self.network(x))):
            image = torch.full_like(found["scores"], index)
            rows.append(torch.cat([found["boxes"], found["scores"][:, None],
                                   found["labels"][:, None].to(found["boxes"].dtype), image[:, None]], 1))
        return torch.cat(rows)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detector().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
