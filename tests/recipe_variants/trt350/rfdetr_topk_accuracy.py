"""RF-DETR's top-k accuracy of class logits, in percent of the batch.

Reduced from rfdetr 1.11.2, models/math.py: ``accuracy`` (lines 16-35) takes ``batch_size =
target.size(0)``, the top ``maxk`` classes of each row (``output.topk(maxk, 1, True, True)``; the
argument is named ``logits`` here), compares them with the targets, and for each k sums the hits as
float and scales them in place with ``correct_k.mul_(100.0 / batch_size)`` (line 34). Written here in
our own words.
"""

import torch
from torch import nn


class TopkAccuracy(nn.Module):
    def __init__(self, topk: tuple[int, ...] = (1, 3)) -> None:
        super().__init__()
        self.topk = topk

    def forward(self, logits, target):
        maxk = max(self.topk)
        batch_size = target.size(0)
        _, pred = logits.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in self.topk:
            correct_k = correct[:k].reshape(-1).float().sum(0)
            res.append(correct_k.mul_(100.0 / batch_size))
        return torch.stack(res)


def build() -> nn.Module:
    return TopkAccuracy().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(6, 5, generator=generator), torch.randint(0, 5, (6,), generator=generator)


DYNAMIC = {"logits": {0: "batch"}, "target": {0: "batch"}}
