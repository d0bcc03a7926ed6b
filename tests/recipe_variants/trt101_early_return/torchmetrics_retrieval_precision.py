"""Retrieval precision at k, zero for a query with no relevant document.

Reduced from Lightning-AI/torchmetrics@dab033394560ab3ce05e3d14c13f32e4cde6b351
src/torchmetrics/functional/retrieval/precision.py:65-71 (``retrieval_precision``: ``if not target.sum(): return
tensor(0.0, device=preds.device)``, then the relevant documents among the top k predictions over ``top_k``).
Written here in our own words, as a module over one query.
"""

import torch
from torch import nn, tensor


class PrecisionAtK(nn.Module):
    def __init__(self, top_k: int = 3) -> None:
        super().__init__()
        self.top_k = top_k

    def forward(self, preds, target):
        if not target.sum():
            return tensor(0.0, device=preds.device)
        kept = torch.where(preds > 0, target, torch.zeros_like(target))
        relevant = kept[preds.topk(min(self.top_k, preds.shape[-1]), dim=-1)[1]].sum().float()
        return relevant / self.top_k


def build() -> nn.Module:
    return PrecisionAtK()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A query without a relevant document: the example takes the shortcut.
    return (torch.rand(8, generator=generator), torch.zeros(8, dtype=torch.long))


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(8, generator=generator), torch.tensor([1, 0, 1, 1, 0, 0, 1, 0]))


DYNAMIC = {"preds": {0: "documents"}, "target": {0: "documents"}}
