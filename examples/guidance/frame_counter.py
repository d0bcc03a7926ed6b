"""Update instance variables: a frame counter kept on ``self`` and written in forward.

The export keeps the counter's value from the traced call. migrate locates the write at its line
(TRT703) and names the manual step: pass the counter in and return its new value.
"""

import torch
from torch import nn


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.frame = 0
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.frame += 1
        return self.proj(x) * self.frame


def build() -> nn.Module:
    return Counter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, generator=generator),)
