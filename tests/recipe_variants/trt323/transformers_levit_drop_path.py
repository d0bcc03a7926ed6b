"""LeViT's residual drop path, ``rnd = rnd.ge_(self.drop_rate).div(1 - self.drop_rate).detach()``: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/levit/modeling_levit.py,
``LevitResidualLayer.forward`` (lines 315-333): in training, a uniform draw per sample,
``torch.rand(hidden_state.size(0), 1, 1)``, is turned in place into a keep mask of 1.0 and 0.0 by
``rnd.ge_(self.drop_rate)``, scaled by ``.div(1 - self.drop_rate)`` (the receiver rebound to the
chain's result) and multiplies the residual branch. The draw is an input here (a random draw has
no value to compare), so the comparison writes into one of the graph's inputs, and the branch
always runs; the residual module is LeViT's MLP (two linear
layers around a Hardswish). Written here in our own words.
"""

import torch
from torch import nn


class LevitResidualLayer(nn.Module):
    def __init__(self, module, drop_rate):
        super().__init__()
        self.module = module
        self.drop_rate = drop_rate

    def forward(self, hidden_state, rnd):
        rnd = rnd.ge_(self.drop_rate).div(1 - self.drop_rate).detach()
        hidden_state = hidden_state + self.module(hidden_state) * rnd
        return hidden_state


def build() -> nn.Module:
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(6, 12), nn.Hardswish(), nn.Linear(12, 6))
    return LevitResidualLayer(mlp, 0.25).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(4, 5, 6, generator=generator), torch.rand(4, 1, 1, generator=generator)


DYNAMIC = {"hidden_state": {0: "batch", 1: "tokens"}, "rnd": {0: "batch"}}
