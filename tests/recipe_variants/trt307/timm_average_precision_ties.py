"""Average precision per class with tied scores as one threshold: timm's evaluator.

Reduced from timm 1.0.31 (the PyPI wheel), timm/task/evaluator.py, ``_average_precision_columns``
(lines 92-105, called from ``_average_precision`` in chunks of classes): the scores of each class
sorted, the last row of every group of equal scores found as ``torch.where(ends, index,
num_examples).flip(0).cummin(0).values.flip(0)`` (the method form, along the first of two axes),
and the precision taken there. Written here in our own words as a module over scores and 0/1
targets; the chunking over classes is left out.
"""

import torch
from torch import nn


class AveragePrecision(nn.Module):
    def forward(self, output, target):
        num_examples = output.shape[0]
        order = output.argsort(dim=0, descending=True)
        scores = output.gather(0, order)
        positives = target.gather(0, order).to(torch.float64)
        true_positives = positives.cumsum(0)
        ends = torch.ones_like(scores, dtype=torch.bool)
        ends[:-1] = scores[:-1] != scores[1:]
        index = torch.arange(num_examples).unsqueeze(1).expand_as(ends)
        group_end = torch.where(ends, index, torch.full_like(index, num_examples)).flip(0).cummin(0).values.flip(0)
        precision = true_positives.gather(0, group_end) / (group_end + 1).to(torch.float64)
        total = true_positives[-1]
        return torch.where(total > 0, (positives * precision).sum(0) / total.clamp(min=1), torch.zeros_like(total))


def build() -> nn.Module:
    return AveragePrecision()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    scores = torch.randint(0, 4, (10, 3), generator=generator).float() / 4  # few values: ties
    return scores, torch.randint(0, 2, (10, 3), generator=generator)


DYNAMIC = {"output": {0: "examples", 1: "classes"}, "target": {0: "examples", 1: "classes"}}
