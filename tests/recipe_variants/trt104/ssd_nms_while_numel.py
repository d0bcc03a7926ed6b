"""ssd.pytorch's ``nms`` keeps the highest-scoring box, drops the boxes that overlap it and repeats
``while idx.numel() > 0``: ``idx`` shrinks by ``idx = idx[IoU.le(overlap)]``, a boolean
selection, so the trip count is the size of a tensor whose size depends on the boxes. No value is
read into Python in the condition, yet a trace unrolls the loop as many times as the example
kept boxes.

Reduced from amdegroot/ssd.pytorch at commit 5b0b77faa955c1917b0c710d770739ba8fbff9b7,
layers/box_utils.py, ``nms`` (lines 174-247), called per class by ``Detect.forward``
(layers/functions/detection.py). Written here in our own words: the legacy ``boxes.new()``
buffers and ``index_select(..., out=)`` become plain gathers, ``keep`` is made with
``zeros_like``, and the count is folded into the one output (``keep`` after its first ``count``
entries is 0). The parameters ``overlap=0.5, top_k=200`` have defaults and no annotations, which
TorchScript rejects, so TRT104 reports the loop and does not script the function.
"""

import torch
from torch import nn


def nms(boxes, scores, overlap=0.5, top_k=200):
    keep = torch.zeros_like(scores, dtype=torch.long)
    if boxes.numel() == 0:
        return keep, 0
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    area = torch.mul(x2 - x1, y2 - y1)
    v, idx = scores.sort(0)
    idx = idx[-top_k:]
    count = 0
    while idx.numel() > 0:
        i = idx[-1]
        keep[count] = i
        count += 1
        if idx.size(0) == 1:
            break
        idx = idx[:-1]
        xx1 = torch.clamp(x1[idx], min=x1[i])
        yy1 = torch.clamp(y1[idx], min=y1[i])
        xx2 = torch.clamp(x2[idx], max=x2[i])
        yy2 = torch.clamp(y2[idx], max=y2[i])
        w = torch.clamp(xx2 - xx1, min=0.0)
        h = torch.clamp(yy2 - yy1, min=0.0)
        inter = w * h
        union = (area[idx] - inter) + area[i]
        IoU = inter / union
        idx = idx[IoU.le(overlap)]
    return keep, count


class Detect(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        keep, count = nms(boxes, scores, 0.5, 200)
        return keep * (torch.arange(keep.shape[0]) < count)


def build() -> nn.Module:
    return Detect()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two clusters of overlapping boxes: two kept
    boxes = torch.tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.1, 2.0, 2.1], [5.0, 5.0, 7.0, 7.0], [5.2, 5.0, 7.0, 7.1]])
    return boxes, torch.tensor([0.9, 0.8, 0.7, 0.6])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}}
