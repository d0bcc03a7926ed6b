"""kuangliu's RetinaNet ``box_nms`` is the greedy NMS many detection repositories copied: it sorts
the scores, and ``while order.numel() > 0`` keeps the first index (``keep.append(i)`` with ``i =
order[0]``, a 0-d index tensor), computes the overlaps of that box with the rest (``mode``
``'union'`` or ``'min'``, a string default), keeps those at most ``threshold`` with ``ids =
(ovr <= threshold).nonzero().squeeze()`` and goes on with ``order = order[ids + 1]``. It returns
``torch.LongTensor(keep)``. The trip count is the number of boxes kept: the size of a ``nonzero``
selection, shifted by one.

Reduced from kuangliu/pytorch-retinanet at commit 07490ab41acd2cca55fef101421dbf85e90578ef,
utils.py, ``box_nms`` (the loop and the ``LongTensor`` return at its end). Written here in our
own words: the docstring goes and the four coordinate columns are read by one ``unbind``; the
sort, the loop, the two overlap modes with their ``raise``, the ``+ 1`` pixel convention, the
unannotated parameters with a number and a string default and the ``LongTensor`` of the list
are kept. Before, TRT104 reported the loop (with a recorded run) and did not script the
function: the string default and ``torch.LongTensor``, which TorchScript does not compile, kept
it reported only. Now the string default is annotated ``str`` like a number's, and the list of
index tensors becomes ``torch.stack(keep)`` cast to ``torch.long`` on the CPU, or an empty long
tensor where no box is kept. As in the original, an input where exactly one box survives a pass
raises (``order`` becomes 0-d): eager mode raises ``IndexError``, the scripted function a
``torch.jit.Error``; the inputs below never leave one box alone.
"""

import torch
from torch import nn


def box_nms(bboxes, scores, threshold=0.5, mode='union'):
    x1, y1, x2, y2 = bboxes.unbind(1)
    areas = (x2 - x1 + 1) * (y2 - y1 + 1)
    _, order = scores.sort(0, descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        w = (x2[order[1:]].clamp(max=x2[i]) - x1[order[1:]].clamp(min=x1[i]) + 1).clamp(min=0)
        h = (y2[order[1:]].clamp(max=y2[i]) - y1[order[1:]].clamp(min=y1[i]) + 1).clamp(min=0)
        inter = w * h
        if mode == 'union':
            ovr = inter / (areas[i] + areas[order[1:]] - inter)
        elif mode == 'min':
            ovr = inter / areas[order[1:]].clamp(max=areas[i])
        else:
            raise TypeError('Unknown nms mode: %s.' % mode)
        ids = (ovr <= threshold).nonzero().squeeze()
        if ids.numel() == 0:
            break
        order = order[ids + 1]
    return torch.LongTensor(keep)


class Detector(nn.Module):
    def forward(self, boxes: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        return box_nms(boxes, scores, 0.5)


def build() -> nn.Module:
    return Detector()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # two pairs of overlapping boxes, the pairs apart: each pass keeps a pair's first box and drops
    # its second, two passes
    boxes = torch.tensor([[0.0, 0.0, 9.0, 9.0], [1.0, 0.0, 9.0, 9.0], [20.0, 0.0, 29.0, 9.0], [21.0, 0.0, 29.0, 9.0]])
    return boxes, torch.tensor([0.9, 0.85, 0.8, 0.75])


DYNAMIC = {"boxes": {0: "boxes"}, "scores": {0: "boxes"}}
