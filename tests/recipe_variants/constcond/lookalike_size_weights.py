"""Look-alike of the DCT subband weights built from the input's size: with a dynamic width the
Gaussian changes with the size, so the trace's branch is the example size's only.

Our own model (the construct of piq 0.8.0 piq/dss.py:86-101 with ``x.size(-1)`` for the block size)."""

import torch
from torch import nn


class SizeWeights(nn.Module):
    def forward(self, x):
        coords = torch.arange(1, x.size(-1) + 1, dtype=x.dtype, device=x.device)
        weight = torch.exp(-((coords / x.size(-1) - 0.5) ** 2) * 8.0)
        total = x.new_zeros(x.size(0))
        for n in range(3):
            if weight[n + 2] < 0.5:
                weight[n + 2] = 0
                continue
            total = total + weight[n + 2] * x[:, :, n].mean(dim=1)
        return total


def build() -> nn.Module:
    return SizeWeights()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "w"}}
TEST_LINE = "            if weight[n + 2] < 0.5:"
