"""tkdetection's ``batched_nms``: torchvision's NMS run class by class over ``torch.unique(idxs).cpu().tolist()``.

Reduced from tkhe/tkdetection @ 45ada50dfb1bb3161750fe782ce98900bccba9eb tkdet/layers/nms.py:8-21 (``batched_nms``,
another owner's detection library that keeps detectron2's first loop without its annotation):
``result_mask = scores.new_zeros(scores.size(), dtype=torch.bool)``, ``for id in torch.unique(idxs).cpu().tolist():``,
``mask = (idxs == id).nonzero().view(-1)``, ``keep = nms(boxes[mask], scores[mask], iou_threshold)``,
``result_mask[mask[keep]] = True``, then ``result_mask.nonzero().view(-1)`` sorted by score. What is reduced: the
loop runs only from 40000 boxes on in tkdetection (below that torchvision's ``batched_nms``); here it runs at every
count (this variant is the loop); the caller is a RetinaNet-style head written for this variant (one anchor a cell,
sigmoid class scores, the best class a box over a threshold). ``nms`` is torchvision's, which the tests replace by
a plain-PyTorch stand-in (tests/transforms/torchvision_standin.py: greedy NMS with an ONNX ``NonMaxSuppression``
symbolic), torchvision's compiled ops not loading with the project's CPU torch. Written here in our own words.
"""

import torch
from torch import nn
from torchvision.ops import nms


def batched_nms(boxes, scores, idxs, iou_threshold):
    assert boxes.shape[-1] == 4
    result_mask = scores.new_zeros(scores.size(), dtype=torch.bool)
    for id in torch.unique(idxs).cpu().tolist():
        mask = (idxs == id).nonzero().view(-1)
        keep = nms(boxes[mask], scores[mask], iou_threshold)
        result_mask[mask[keep]] = True
    keep = result_mask.nonzero().view(-1)
    keep = keep[scores[keep].argsort(descending=True)]
    return keep


class RetinaHead(nn.Module):
    def __init__(self, classes: int = 4, threshold: float = 0.45, stride: int = 4) -> None:
        super().__init__()
        self.cls = nn.Conv2d(3, classes, 3, stride=stride, padding=1)
        self.reg = nn.Conv2d(3, 4, 3, stride=stride, padding=1)
        self.threshold, self.stride = threshold, stride

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        logits = self.cls(image)[0]
        deltas = self.reg(image)[0]
        height, width = logits.shape[1:]
        ys = torch.arange(height, dtype=image.dtype)[:, None].expand(height, width)
        xs = torch.arange(width, dtype=image.dtype)[None, :].expand(height, width)
        centres = torch.stack([xs, ys], 0).flatten(1).t() * self.stride + self.stride / 2
        half = deltas[2:].flatten(1).t().exp() * 2 * self.stride
        middle = centres + deltas[:2].flatten(1).t() * self.stride
        boxes = torch.cat([middle - half, middle + half], 1)
        scores, labels = logits.flatten(1).t().sigmoid().max(1)
        chosen = scores > self.threshold
        boxes, scores, labels = boxes[chosen], scores[chosen], labels[chosen]
        keep = batched_nms(boxes, scores, labels, 0.5)
        return torch.cat([boxes[keep], scores[keep, None], labels[keep, None].float()], 1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return RetinaHead().eval()


def inputs(generator: torch.Generator, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, height, width, generator=generator),)


DYNAMIC = {"image": {2: "height", 3: "width"}}
CALL = "for id in torch.unique(idxs).cpu().tolist():"
