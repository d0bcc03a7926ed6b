"""A size computed with ``math.ceil``: the TorchScript export keeps the traced number.

``math.ceil(x.shape[1] / 4)`` turns the traced width into a Python int, so the exported graph
makes ``ceil(10 / 4) = 3`` columns for every width. With ``--unsafe`` (TRT712's assumption: the
receiver is a tensor and sizes stay below 2**53) migrate writes ``(x.shape[1] + 3) // 4``, which
stays in the graph.

    trtcodemod migrate examples/migrate/ceil_size.py --model build --inputs inputs \\
        --dynamic-axes '{"x": {"1": "n"}}' --unsafe
"""

import math

import torch
from torch import nn


class Strided(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = math.ceil(x.shape[1] / 4)
        return x.new_ones(x.shape[0], n) * x.sum(1, keepdim=True)


def build() -> nn.Module:
    return Strided()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 10, generator=generator),)
