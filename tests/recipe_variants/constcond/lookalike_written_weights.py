"""Look-alike of the DCT subband weights that are written from the input before the branch: built
from configuration, then ``weight[0, 0] = x.abs().mean()``, so the branch on them reads the data.

Our own model (the construct of piq 0.8.0 piq/dss.py:86-101, one weight overwritten by the input)."""

import torch
from torch import nn


class WrittenWeights(nn.Module):
    def forward(self, x):
        size = 3
        coords = torch.arange(1, size + 1, dtype=x.dtype, device=x.device)
        weight = torch.exp(-((coords - 0.5) ** 2)[None, :] - ((coords - 0.5) ** 2)[:, None])
        weight[0, 0] = x.abs().mean()
        total = x.new_zeros(x.size(0))
        for m in range(size):
            for n in range(size):
                if weight[m, n] < 0.5:
                    weight[m, n] = 0
                    continue
                total = total + weight[m, n] * x[:, m::size, n::size].mean(dim=(1, 2))
        return total


def build() -> nn.Module:
    return WrittenWeights()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "h", 2: "w"}}
TEST_LINE = "                if weight[m, n] < 0.5:"
