"""An SSD training script's ``box_nms`` (kuangliu's form, rewritten by another author): ``while
order.numel() > 0`` it keeps ``i = order[0]`` in a list, clamps the remaining boxes by the kept
box's coordinates read as Python numbers (``clamp(min=x1[i].item())``), keeps the boxes whose
overlap is at most the threshold, ``ids = (overlap <= threshold).nonzero().squeeze()``, and goes
on with ``order = order[ids + 1]``; it returns ``torch.tensor(keep, dtype=torch.long)``.

Reduced from wchen61/DeepLearningModels at commit 40bc97c45c9cb1bbc66c843a81ed9cae82f7d0ad,
Detection/SSD/train.py, ``box_nms`` (lines 3-33). Written here in our own words: the four
coordinate columns are read by one ``unbind``; the loop, the ``.item()`` bounds (the right and
bottom edges clamped with ``min`` as the original does, so that two boxes of one size always
overlap fully and boxes of different sizes overlap by the smaller's area), the unannotated
parameters with a number default and the ``torch.tensor`` of the list with its dtype are kept.
Before, TRT104 reported the loop (with a recorded run) and did not script the function:
``torch.tensor`` of a list started empty raises in a scripted function where no box is kept.
Now the list of index tensors becomes ``torch.stack(keep)`` cast to ``torch.long`` on the CPU,
or an empty long tensor where it is empty. As in the original, an input where exactly one box
survives a pass raises (``order`` becomes 0-d); the inputs below never leave one box alone.
"""

import torch
from torch import nn


def box_nms(bboxes, scores, threshold=0.5):
    x1, y1, x2, y2 = bboxes.unbind(1)
    areas = (x2 - x1) * (y2 - y1)
    _, order = scores.sort(0, descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        w = (x2[order[1:]].clamp(min=x2[i].item()) - x1[order[1:]].clamp(min=x1[i].item())).clamp(min=0)
        h = (y2[order[1:]].clamp(min=y2[i].item()) - y1[order[1:]].clamp(min=y1[i].item())).clamp(min=0)
        inter = w * h
        overlap = inter / (areas[i] + areas[order[1:]] - inter)
        ids = (overlap <= threshold).nonzero().squeeze()
        if ids.numel() == 0:
            break
        order = order[ids + 1]
    return torch.tensor(keep, dtype=torch.long)


class Detector(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        return box_nms(boxes, scores, 0.5)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two pairs of boxes of one size each, the second pair half the size, down and to the right:
    # each pass keeps a pair's first box and drops its second, two passes
    boxes = torch.tensor([[0.0, 0.0, 16.0, 16.0], [0.5, 0.0, 16.5, 16.0], [32.0, 32.0, 40.0, 40.0],
                          [32.5, 32.0, 40.5, 40.0]])
    return boxes, torch.tensor([0.9, 0.85, 0.8, 0.75])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}}
