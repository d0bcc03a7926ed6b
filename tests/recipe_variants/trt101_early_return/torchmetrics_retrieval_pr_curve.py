"""Retrieval precision and recall at 1..k, a tuple of zeros for a query with no relevant document.

Reduced from Lightning-AI/torchmetrics@dab033394560ab3ce05e3d14c13f32e4cde6b351
src/torchmetrics/functional/retrieval/precision_recall_curve.py:90-101 (``retrieval_precision_recall_curve``:
``if not target.sum(): return torch.zeros(max_k, ...), torch.zeros(max_k, ...), topk``, then the cumulative
relevant documents among the top k over ``topk`` and over the relevant count). Written here in our own words, as
a module over one query with at least ``max_k`` documents (``_cumsum`` is ``torch.cumsum``).
"""

import torch
from torch import nn


class PrecisionRecallCurve(nn.Module):
    def __init__(self, max_k: int = 4) -> None:
        super().__init__()
        self.max_k = max_k

    def forward(self, preds, target):
        topk = torch.arange(1, self.max_k + 1, device=preds.device)
        if not target.sum():
            return torch.zeros(self.max_k, device=preds.device), torch.zeros(self.max_k, device=preds.device), topk
        relevant = target[preds.topk(self.max_k, dim=-1)[1]].float()
        relevant = torch.cumsum(relevant, dim=0)
        recall = relevant / target.sum()
        precision = relevant / topk
        return precision, recall, topk


def build() -> nn.Module:
    return PrecisionRecallCurve()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A query without a relevant document: the example takes the shortcut.
    return (torch.rand(7, generator=generator), torch.zeros(7, dtype=torch.long))


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(7, generator=generator), torch.tensor([0, 1, 1, 0, 0, 1, 0]))


DYNAMIC = {"preds": {0: "documents"}, "target": {0: "documents"}}
