"""For loops, dynamic number of iterations: a refinement whose step count is an input.

``range(int(steps))`` reads the tensor while tracing: the export unrolls the loop with the
example's count. The guidance: the steps depend on each other, so move the loop into a
``@torch.jit.script`` function; the TorchScript exporter keeps it as an ONNX ``Loop``. TRT104
adds the decorator (unsafe: the function must compile); migrate keeps it as a verified candidate.
"""

import torch
from torch import nn


def refine(x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
    for _ in range(int(steps)):
        x = torch.tanh(x) * 0.5 + x
    return x


class Refiner(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        return refine(self.proj(x), steps)


def build() -> nn.Module:
    return Refiner()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 4, generator=generator), torch.randint(1, 5, (), generator=generator)
