"""A value baked in by the export: a Python ``if`` on a tensor picks the branch.

``if x.mean() > 0`` is evaluated once while tracing; the graph keeps the branch the traced
input took. ``trtcodemod migrate`` observes the value read at that line, the verifier's other
input sets show the export is not faithful, and with ``--unsafe`` TRT101 blends both branches.

    trtcodemod migrate examples/migrate/baked_scale.py --model build --inputs inputs --unsafe
"""

import torch
from torch import nn


class ExposureHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x)
        if x.mean() > 0:
            y = y * 2.0
        return y


def build() -> nn.Module:
    return ExposureHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Bright and dark sets alternate (seeds 0, 1, 2): set 2 takes the branch the trace left out.
    offset = 2.0 if generator.initial_seed() % 2 == 0 else -2.0
    return (torch.randn(4, 8, generator=generator) + offset,)
