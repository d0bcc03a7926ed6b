"""Dynamic data shape: a K computed in Python from a size, ``max(x.shape[1] // 2, 1)``.

Python's ``max`` picks while tracing; the width going 8 → 9 gives 4 both times, so no input set
exposes it, but the TracerWarning locates it (TRT712) and migrate reports it (exit 1).
"""

import torch
from torch import nn


class HalfTopK(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = max(x.shape[1] // 2, 1)
        return torch.topk(x, k, dim=1).values


def build() -> nn.Module:
    return HalfTopK()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, generator=generator),)
