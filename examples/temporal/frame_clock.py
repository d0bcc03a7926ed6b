"""A frame counter kept on ``self``, used in arithmetic: a time embedding that advances per frame."""

import torch
from torch import nn


class FrameClock(nn.Module):
    def __init__(self, dims: int = 4, period: float = 10.0) -> None:
        super().__init__()
        self.proj = nn.Linear(dims, dims)
        self.period = period
        self.frame = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.frame += 1
        phase = self.frame / self.period
        return self.proj(x) + torch.sin(x * phase)


def build() -> nn.Module:
    return FrameClock().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 4, generator=generator),)
