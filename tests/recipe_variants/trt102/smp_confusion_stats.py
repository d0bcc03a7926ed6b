"""segmentation_models_pytorch's confusion statistics: predicted and target probabilities are
binarised with ``torch.where(x >= threshold, 1, 0)`` (two integer literals, the comparison
written in the call), and in multiclass mode the pixels of an ignored label are set to ``-1`` in
both maps with ``torch.where(ignore, -1, labels)`` (the number first, the tensor a name), before
true/false positives and negatives are counted per image.

Reduced from qubvel-org/segmentation_models.pytorch at tag v0.6.0 (the PyPI release the zoo
unpacks), segmentation_models_pytorch/metrics/functional.py:169-173 (the thresholds in
``get_stats``), :188-192 (``_get_stats_multiclass``: ``ignore = target == ignore_index`` and the
two selects) and ``_get_stats_multilabel`` (the counts as sums of products over the spatial
axes), written here in our own words: one model thresholds, marks the ignored pixels of the
target and counts, without the per-class histograms.
"""

import torch
from torch import Tensor, nn


class ConfusionStats(nn.Module):
    def __init__(self, threshold: float = 0.5, ignore_index: int = 2) -> None:
        super().__init__()
        self.threshold = threshold
        self.ignore_index = ignore_index

    def forward(self, output: Tensor, target: Tensor, labels: Tensor) -> Tensor:
        output = torch.where(output >= self.threshold, 1, 0)
        target = torch.where(target >= self.threshold, 1, 0)
        ignore = labels == self.ignore_index
        output = torch.where(ignore, -1, output)
        target = torch.where(ignore, -1, target)
        valid = output >= 0
        tp = (output * target * valid).sum((1, 2))
        fp = (output * (1 - target) * valid).sum((1, 2))
        fn = ((1 - output) * target * valid).sum((1, 2))
        tn = ((1 - output) * (1 - target) * valid).sum((1, 2))
        return torch.stack([tp, fp, fn, tn], dim=1)


def build() -> nn.Module:
    return ConfusionStats()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    output = torch.rand(2, 4, 5, generator=generator)
    target = torch.rand(2, 4, 5, generator=generator)
    labels = torch.randint(0, 3, (2, 4, 5), generator=generator)
    return output, target, labels


DYNAMIC = {"output": {0: "batch", 1: "height", 2: "width"}, "target": {0: "batch", 1: "height", 2: "width"},
           "labels": {0: "batch", 1: "height", 2: "width"}}
