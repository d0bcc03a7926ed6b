"""Dynamic shape tensors: ``a[m] = b[m]`` with a value mask.

``b[m]`` exports as NonZero + GatherND; TRT201's helper indexes by the mask's positions.
"""

import torch
from torch import nn


class Merge(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.clone()
        m = a < 0
        a[m] = b[m]
        return a * 1.0


def build() -> nn.Module:
    return Merge()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 4, generator=generator), torch.randn(4, 4, generator=generator))
