"""Python built-ins on tensors: ``len(x)`` of the batch is traced as a constant.

The parameter has no annotation, so syntax alone cannot tell ``x`` from a list; the observed run
saw a tensor there every time, which proves TRT704's assumption: ``len(x)`` → ``x.shape[0]``.
"""

import torch
from torch import nn


class Flatten(nn.Module):
    def forward(self, x):
        n = len(x)
        return x.reshape(n, -1) * 2


def build() -> nn.Module:
    return Flatten()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, 5, generator=generator),)
