"""Spearman correlation of several outputs at once: each output's column ranked on its own, ties averaged.

Reduced from Lightning-AI/torchmetrics @ dab033394560ab3ce05e3d14c13f32e4cde6b351,
src/torchmetrics/functional/regression/spearman.py:83 (``torch.stack([_rank_data(p) for p in
preds.T]).T``; ``_rank_data``: ``argsort`` ranks, then ``torch.unique(..., return_inverse=True,
return_counts=True)`` and a ``scatter_add_`` to average the ranks of ties), in our own words.
``torch.unique`` has a data-dependent size: ``torch.vmap`` refuses it, and the rewrite's trace falls
back to the loop as written.
"""

import torch
from torch import nn

DYNAMIC = {"preds": {1: "outputs"}, "target": {1: "outputs"}}


def ranks(values):
    count = values.numel()
    rank = torch.empty_like(values, dtype=torch.int32)
    order = values.argsort()
    rank[order[:count]] = torch.arange(1, count + 1, dtype=torch.int32, device=values.device)
    uniques, inverse, counts = torch.unique(values, sorted=True, return_inverse=True, return_counts=True)
    total = torch.zeros_like(uniques, dtype=torch.int32)
    total.scatter_add_(0, inverse, rank.to(torch.int32))
    return (total / counts)[inverse]


class Spearman(nn.Module):
    def forward(self, preds, target):
        preds = torch.stack([ranks(p) for p in preds.T]).T
        target = torch.stack([ranks(t) for t in target.T]).T
        preds_diff = preds - preds.mean(0)
        target_diff = target - target.mean(0)
        cov = (preds_diff * target_diff).mean(0)
        spread = torch.sqrt((preds_diff * preds_diff).mean(0)) * torch.sqrt((target_diff * target_diff).mean(0))
        return torch.clamp(cov / (spread + 1e-6), -1.0, 1.0)


def build() -> nn.Module:
    return Spearman()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(9, 2, generator=generator), torch.randn(9, 2, generator=generator))
