"""timm's NaFlex Mixup: soft targets that follow how much of each image its mixing partner replaced.

Reduced from huggingface/pytorch-image-models @ a5e551b0f41c058425de6d9c2e371568840e9afa, timm/data/naflex_mixup.py:
``pairwise_mixup_target`` builds smoothed one-hot targets (``smoothed_sparse_target``: ``torch.full`` and
``scatter_``), clones them and, for each image ``i`` mixed with ``j``, writes ``targets[i].mul_(lam).add_(y_onehot[j],
alpha=1.0 - lam)`` (line 175). Kept: both functions. Reduced: the pairing and the per-image fractions that
``mix_batch_variable_size`` draws are fixed in the module. Written here in our own words.
"""

from typing import Dict, List

import torch
from torch import nn

DYNAMIC: dict = {}
#: The line of the chained in-place calls (the rule's finding).
CALL = "targets[i].mul_(lam).add_(y_onehot[j], alpha=1.0 - lam)"


def smoothed_sparse_target(targets: torch.Tensor, *, num_classes: int, smoothing: float = 0.0) -> torch.Tensor:
    off_val = smoothing / num_classes
    on_val = 1.0 - smoothing + off_val

    y_onehot = torch.full(
        (targets.size(0), num_classes),
        off_val,
        dtype=torch.float32,
        device=targets.device
    )
    y_onehot.scatter_(1, targets.unsqueeze(1), on_val)
    return y_onehot


def pairwise_mixup_target(
        targets: torch.Tensor,
        pair_to: Dict[int, int],
        lam_list: List[float],
        *,
        num_classes: int,
        smoothing: float = 0.0,
) -> torch.Tensor:
    """Soft targets: each image's own label by the fraction of its pixels it kept, its partner's by the rest."""
    y_onehot = smoothed_sparse_target(targets, num_classes=num_classes, smoothing=smoothing)
    targets = y_onehot.clone()
    for i, j in pair_to.items():
        lam = lam_list[i]
        targets[i].mul_(lam).add_(y_onehot[j], alpha=1.0 - lam)

    return targets


class MixupTargets(nn.Module):
    def __init__(self, num_classes: int = 6, smoothing: float = 0.1) -> None:
        super().__init__()
        self.num_classes, self.smoothing = num_classes, smoothing
        self.pair_to = {0: 2, 2: 0, 1: 3, 3: 1}
        self.lam_list = [0.7, 0.55, 0.7, 0.55]

    def forward(self, labels):
        return pairwise_mixup_target(labels, self.pair_to, self.lam_list, num_classes=self.num_classes,
                                     smoothing=self.smoothing)


def build() -> nn.Module:
    return MixupTargets().eval()


def inputs(generator: torch.Generator, batch: int = 4) -> tuple[torch.Tensor, ...]:
    """The hard labels of the four images mixed in pairs."""
    return (torch.randint(0, 6, (batch,), generator=generator),)
