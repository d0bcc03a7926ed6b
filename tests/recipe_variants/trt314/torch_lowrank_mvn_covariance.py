"""The covariance of a low-rank multivariate normal: PyTorch's own distributions.

Reduced from torch 2.13.0 (the PyPI wheel), torch/distributions/lowrank_multivariate_normal.py,
``LowRankMultivariateNormal.covariance_matrix`` (lines 188-195): ``torch.matmul(
self._unbroadcasted_cov_factor, self._unbroadcasted_cov_factor.mT) + torch.diag_embed(
self._unbroadcasted_cov_diag)``, the property read on an attribute as the second argument of a call
split over lines, then expanded to the batch shape. Written here in our own words as a module whose
factor and diagonal are predicted from features (a linear layer and a softplus), as a model head
does; ``torch.diag_embed`` does not export either (TRT337's).
"""

import torch
import torch.nn.functional as F
from torch import nn


class LowRankCovariance(nn.Module):
    def __init__(self, features: int = 5, event: int = 4, rank: int = 2) -> None:
        super().__init__()
        self.event, self.rank = event, rank
        self.factor = nn.Linear(features, event * rank)
        self.diag = nn.Linear(features, event)

    def forward(self, h):
        self._unbroadcasted_cov_factor = self.factor(h).view(-1, self.event, self.rank)
        self._unbroadcasted_cov_diag = F.softplus(self.diag(h))
        covariance_matrix = torch.matmul(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_factor.mT
        ) + torch.diag_embed(self._unbroadcasted_cov_diag)
        return covariance_matrix.expand(h.shape[:-1] + (self.event, self.event))


def build() -> nn.Module:
    torch.manual_seed(0)
    return LowRankCovariance().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 5, generator=generator),)


DYNAMIC = {"h": {0: "batch"}}
