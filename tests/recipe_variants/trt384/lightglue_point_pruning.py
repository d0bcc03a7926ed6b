"""LightGlue's adaptive point pruning: a keypoint is kept while it is matchable or its token is not yet confident.

Reduced from cvg/LightGlue @ 1fd587b6f5a7a0befd31188f1e5d2f05740006d7, lightglue/lightglue.py: after each layer,
``LightGlue._forward`` scores every keypoint's matchability (``self.log_assignment[i].get_matchability(desc0)``),
its token confidence (``self.token_confidence[i](desc0, desc1)``), asks ``get_pruning_mask`` which to keep --
``keep = scores > (1 - self.conf.width_confidence)``, then, where there are confidences, ``keep |= confidences <=
self.confidence_thresholds[layer_index]`` (line 642) -- and keeps those descriptors with ``torch.where(prunemask0)[1]``
and ``index_select``. Kept: the two scores (a linear layer and a sigmoid each), ``get_pruning_mask`` with its
augmented or, the per-layer thresholds computed in ``__init__`` and the selection of the kept descriptors. Reduced:
one image, one layer, no attention between the layers, no matching. Written here in our own words.
"""

import math
from types import SimpleNamespace

import torch
from torch import nn

DYNAMIC = {"desc0": {1: "points"}}
#: The line of the augmented or (the rule's finding).
CALL = "keep |= confidences <= self.confidence_thresholds[layer_index]"


class PointPruning(nn.Module):
    def __init__(self, dim: int = 16, n_layers: int = 4) -> None:
        super().__init__()
        self.conf = SimpleNamespace(width_confidence=0.7, n_layers=n_layers)
        self.matchability = nn.Linear(dim, 1)
        self.token = nn.Linear(dim, 1)
        self.confidence_thresholds = [self.confidence_threshold(i) for i in range(n_layers)]

    def confidence_threshold(self, layer_index: int) -> float:
        threshold = 0.8 + 0.1 * math.exp(-4.0 * layer_index / self.conf.n_layers)
        return min(max(threshold, 0), 1)

    def get_pruning_mask(self, confidences: torch.Tensor, scores: torch.Tensor, layer_index: int) -> torch.Tensor:
        """mask points which should be removed"""
        keep = scores > (1 - self.conf.width_confidence)
        if confidences is not None:  # Low-confidence points are never pruned.
            keep |= confidences <= self.confidence_thresholds[layer_index]
        return keep

    def forward(self, desc0):
        scores0 = torch.sigmoid(self.matchability(desc0)).squeeze(-1)
        token0 = torch.sigmoid(self.token(desc0)).squeeze(-1)
        prunemask0 = self.get_pruning_mask(token0, scores0, 1)
        keep0 = torch.where(prunemask0)[1]
        return desc0.index_select(1, keep0)


def build() -> nn.Module:
    return PointPruning().eval()


def inputs(generator: torch.Generator, points: int = 9) -> tuple[torch.Tensor, ...]:
    """One image's ``points`` keypoint descriptors."""
    return (torch.randn(1, points, 16, generator=generator) * 2.0,)
