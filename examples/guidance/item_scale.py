"""Miscellaneous 1, ``.item()``: a tensor's value turned into a Python number feeds arithmetic.

The trace keeps the example's number. The guidance: keep it a tensor. ``peak`` only feeds
arithmetic, so TRT702 drops the ``.item()`` (unsafe: a 0-d tensor stands for the number);
migrate keeps it as a candidate the verification finds equivalent.
"""

import torch
from torch import nn


class Normalize(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        peak = x.abs().max().item()
        return x / (peak + 1.0)


def build() -> nn.Module:
    return Normalize()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 4, generator=generator) * (1 + generator.initial_seed()),)
