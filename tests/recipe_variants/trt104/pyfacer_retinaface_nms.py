"""pyfacer's RetinaFace ``nms``: the "pure Python NMS baseline" of py-faster-rcnn ported to torch. It
sorts the scores, then ``while order.numel() > 0`` keeps ``order[0].item()`` (a Python int) in a list
started empty and drops the boxes whose IoU with it exceeds the threshold, by ``torch.where`` on the
overlaps. The caller indexes the detections with the returned list of ints.

Reduced from FacePerceiver/facer @ pypi:pyfacer==0.0.5 (MIT), ``facer/face_detection/retinaface.py`` (``nms``
and its call in ``post_process``). Written here in our own words;
the landmarks, the prior boxes and the score threshold are left out, the boxes and scores come in
as inputs.

Why it is a variant: TorchScript types ``keep = []`` as a list of tensors, so ``keep.append(i)``
of the Python int ``order[0].item()`` is refused when the decorator compiles the function (at
import). TRT104 once put ``@torch.jit.script`` here; in zoo 90 a rewrite of the loop by another
rule hid that, and when that rule went back the model failed at import. TRT104 reports the loop
and leaves the function as written.
"""

from typing import List

import torch
from torch import nn


def nms(dets: torch.Tensor, thresh: float) -> List[int]:
    x1, y1, x2, y2, scores = dets[:, 0], dets[:, 1], dets[:, 2], dets[:, 3], dets[:, 4]
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = torch.flip(scores.argsort(), [0])
    keep = []
    while order.numel() > 0:
        i = order[0].item()
        keep.append(i)
        left = order[1:]
        w = torch.clamp(torch.minimum(x2[i], x2[left]) - torch.maximum(x1[i], x1[left]) + 1, min=0.0)
        h = torch.clamp(torch.minimum(y2[i], y2[left]) - torch.maximum(y1[i], y1[left]) + 1, min=0.0)
        inter = w * h
        overlap = inter / (areas[i] + areas[left] - inter)
        order = order[torch.where(overlap <= thresh)[0] + 1]
    return keep


class FaceNms(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        dets = torch.hstack((boxes, scores.unsqueeze(-1)))
        keep = nms(dets, 0.4)
        return dets[keep, :]


def build() -> nn.Module:
    return FaceNms()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two faces, each found twice: two kept
    boxes = torch.tensor([[0.0, 0.0, 20.0, 20.0], [1.0, 1.0, 21.0, 20.0], [50.0, 50.0, 70.0, 70.0],
                          [52.0, 50.0, 70.0, 71.0]])
    return boxes, torch.tensor([0.9, 0.8, 0.7, 0.6])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}}
