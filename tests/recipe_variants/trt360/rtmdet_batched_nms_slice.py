"""RTMDet's class-wise NMS image by image, its picks capped by slicing ``batched_nms``'s result.

Reduced from alessioarcara/rtmdet_pytorch_implementation@f42b55438e056e8c03d743e826e8289412aa4042
rtmdet/rtmdet.py:159-179 (zoo 21's ``rtmdet_tiny_nms``): ``for i in range(B)``, a score mask computed first
(``keep = im_scores >= float(self.score_threshold)``), then ``keep = batched_nms(boxes[i], scores[i], classes[i],
iou_threshold=self.nms_iou_threshold)[: self.max_num_detections]`` on the image's whole candidates, as there. There
three lists are appended and stacked (one image a call); here one tensor of rows an image with the image's index,
concatenated. Written here in our own words.
"""

import torch
import torchvision
from torch import Tensor, nn


class Detector(nn.Module):
    def __init__(self, score_threshold: float = 0.3, nms_iou_threshold: float = 0.5, max_num_detections: int = 4):
        super().__init__()
        self.head = nn.Conv2d(3, 8, 3, stride=4, padding=1)
        self.score_threshold = score_threshold
        self.nms_iou_threshold = nms_iou_threshold
        self.max_num_detections = max_num_detections

    def nms(self, boxes: Tensor, scores: Tensor, classes: Tensor) -> Tensor:
        rows = []
        for i in range(boxes.shape[0]):
            im_scores = scores[i]
            keep = im_scores >= float(self.score_threshold)
            keep = torchvision.ops.batched_nms(
                boxes[i], scores[i], classes[i], iou_threshold=self.nms_iou_threshold
            )[: self.max_num_detections]
            rows.append(torch.cat([boxes[i][keep], scores[i][keep, None], classes[i][keep, None].to(boxes.dtype),
                                   torch.full_like(scores[i][keep, None], i)], 1))
        return torch.cat(rows)

    def forward(self, x: Tensor) -> Tensor:
        out = self.head(x).flatten(2).transpose(1, 2)
        corner = out[..., :2].sigmoid() * 32
        boxes = torch.cat([corner, corner + out[..., 2:4].sigmoid() * 12], -1)
        scores, classes = out[..., 4:].sigmoid().max(-1)
        return self.nms(boxes, scores, classes)


def build() -> nn.Module:
    torch.manual_seed(0)
    model = Detector()
    return model.eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """Four images, brighter than the others."""
    return (1.5 * torch.rand(4, 3, 32, 32, generator=generator),)


DYNAMIC = {"x": {0: "images"}}
