"""Shape tensors and execution tensors (Misc. 2, dynamic slices): keep the first ``mask.sum()`` rows.

The slice's end is a sum over the mask: an execution tensor where TensorRT needs a shape
tensor. The graph check reports the ``Slice`` at its line with TRT715; there is no mechanical
rewrite (a fixed-size form changes the output's shape), so migrate names it with the manual
step: mask at a fixed size, or pass the count in as an input.
"""

import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        n = mask.sum()
        return x[:n] * 2


def build() -> nn.Module:
    return Head()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(10, 4, generator=generator)
    mask = torch.rand(10, generator=generator) > 0.5
    return x, mask
