"""torchmetrics' binary stat scores: an `if` on tensor values inside an `if` on configuration.

Reduced from Lightning-AI/torchmetrics v1.2.0, src/torchmetrics/functional/classification/stat_scores.py:90-117
(``_binary_stat_scores_format``, which ``binary_stat_scores`` and the binary accuracy/F1/precision metrics
call): float predictions are taken for logits unless they all lie in [0, 1] (``if preds.is_floating_point():``
on the dtype, then ``if not torch.all((preds >= 0) * (preds <= 1)): preds = preds.sigmoid()``), then
thresholded; the true/false positives and negatives are counted per sample. The nesting is the other way
round from UniMatch's: configuration outer, the tensor test inner. Kept: the dtype test, the range test as
written, the threshold and the counting. Left out: `ignore_index` and the input validation. Written in our
own words.
"""

import torch
from torch import Tensor, nn


def binary_format(preds: Tensor, target: Tensor, threshold: float = 0.5):
    if preds.is_floating_point():
        if not torch.all((preds >= 0) * (preds <= 1)):
            # logits: squash them first
            preds = preds.sigmoid()
        preds = preds > threshold

    preds = preds.reshape(preds.shape[0], -1)
    target = target.reshape(target.shape[0], -1)
    return preds, target


def binary_stat_scores(preds: Tensor, target: Tensor) -> Tensor:
    preds, target = binary_format(preds, target)
    tp = ((target == preds) & (target == 1)).sum(-1)
    fn = ((target != preds) & (target == 1)).sum(-1)
    fp = ((target != preds) & (target == 0)).sum(-1)
    tn = ((target == preds) & (target == 0)).sum(-1)
    return torch.stack([tp, fp, tn, fn], dim=-1)


class StatScores(nn.Module):
    """The stat scores of predictions (logits or probabilities) against labels, as the metric's update takes them."""

    def forward(self, preds, target):
        return binary_stat_scores(preds, target)


def build() -> nn.Module:
    return StatScores()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # logits (some outside [0, 1]: the test holds)
    return (torch.randn(2, 5, generator=generator) * 3, torch.randint(0, 2, (2, 5), generator=generator))


DYNAMIC = {"preds": {0: "batch", 1: "items"}, "target": {0: "batch", 1: "items"}}
