"""super-gradients' ``get_top_k_idx_per_cls`` compares each prediction's class with every class id
up to the largest one present: ``n_unique_cls = torch.max(preds_cls)``, then
``preds_cls.view(-1, 1) == torch.arange(n_unique_cls + 1, device=...)``.

Reduced from Deci-AI/super-gradients at commit e0ccacf8868ffa1296fa4f8407c03d2bc227312c,
src/super_gradients/training/utils/detection_utils.py, ``get_top_k_idx_per_cls`` (lines
1342-1356). Written here in our own words: the per-class sort and top-k selection after the
mask are left out; the masked scores are the output. The range's length is the largest class id
plus one, a value of the data that no shape holds: the rule reports it with the manual step.
"""

import torch
from torch import nn


class TopKPerClass(nn.Module):
    def forward(self, preds_scores: torch.Tensor, preds_cls: torch.Tensor) -> torch.Tensor:
        n_unique_cls = torch.max(preds_cls)
        mask = preds_cls.view(-1, 1) == torch.arange(n_unique_cls + 1, device=preds_scores.device).view(1, -1)
        return preds_scores.view(-1, 1) * mask


def build() -> nn.Module:
    return TopKPerClass()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(6, generator=generator), torch.tensor([0, 2, 1, 2, 0, 3])


DYNAMIC = {"preds_scores": {0: "preds"}, "preds_cls": {0: "preds"}}
