"""Dynamic data shape: a K computed in Python from a size, ``max(x.shape[1] // 2, 1)``.

Python's ``max`` picks while tracing: the graph keeps "the size wins", wrong only at width 1.
The width going 8 → 9 does not expose it, but the TracerWarning locates it (TRT712), and migrate
applies ``_trt_size_max`` as a verified candidate.
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
