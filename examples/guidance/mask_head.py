"""Shape tensors and execution tensors (Misc. 2, slice with a dynamic dim): keep the first
``mask.sum()`` rows.

The slice's end is a sum over the mask: an execution tensor where TensorRT needs a shape
tensor (the graph check reports the ``Slice`` at its line). The guidance: turn the bound
into an index. TRT715 rewrites ``x[:n]`` to ``x[torch.arange(x.shape[0]) < n]`` (unsafe: the
same rows for ``n >= 0``, and a copy instead of a view); migrate keeps it as a candidate the
verification finds equivalent.
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
