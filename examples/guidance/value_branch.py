"""Dynamic if-else on a value: ``if scores.max() > 0.5`` (the guidance's preferred recipe: vectorize).

The trace keeps the branch of the example; the candidate TRT101 fix blends both branches with
``torch.where`` and is kept once the verification finds it equivalent on every input set.
"""

import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        out = scores * 2.0
        if scores.max() > 0.5:
            out = out - 1.0
        return out


def build() -> nn.Module:
    return Gate()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    high = generator.initial_seed() % 2 == 0
    return (torch.rand(3, 4, generator=generator) * (1.0 if high else 0.4),)
