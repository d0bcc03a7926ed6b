"""The predictive mean and variance updates of a variational GP: GPyTorch.

Reduced from gpytorch 1.15.2 (the PyPI wheel), gpytorch/variational/variational_strategy.py,
``ComputePredictiveUpdates.forward`` (lines 59-82): with the interpolation term ``L^-1 K_zx``,
``mean_update = (interp_term.mT @ inducing_values.unsqueeze(-1)).squeeze(-1)`` and
``variance_update = torch.sum(interp_term.mT * (interp_term.mT @ middle), dim=-1)``: the property
three times, in parentheses, as a product's left operand and inside an elementwise product. The
triangular solve that gives the interpolation term is left out (the term is an input here, with
the inducing values and the middle matrix ``S - I``). Written here in our own words.
"""

import torch
from torch import nn


class PredictiveUpdates(nn.Module):
    def forward(self, interp_term, inducing_values, middle):
        mean_update = (interp_term.mT @ inducing_values.unsqueeze(-1)).squeeze(-1)
        variance_update = torch.sum(interp_term.mT * (interp_term.mT @ middle), dim=-1)
        return mean_update, variance_update


def build() -> nn.Module:
    return PredictiveUpdates()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, generator=generator), torch.randn(2, 4, generator=generator),
            torch.randn(2, 4, 4, generator=generator))


DYNAMIC = {"interp_term": {0: "batch", 2: "data"}, "inducing_values": {0: "batch"}, "middle": {0: "batch"}}
