"""The same subband weights, moved to the input's dtype and device with ``.to(x)``.

Reduced from piq before 0.8.0's change (the diff that made it ``dtype=x.dtype, device=x.device``:
``coords = torch.arange(1, dct_size + 1).to(x)``), as jansel/pytorch-jit-paritybench@175bb73ada111bf34321b61b3bf5f059aa64caca
generated/test_photosynthesis_team_piq.py keeps piq's DSS (``dss``: the weights, then ``if weight[m, n] <
threshold: weight[m, n] = 0``). Written here in our own words; ``t.to(x)`` takes only x's dtype and device.
"""

import torch
from torch import nn


class WeightedBlocks(nn.Module):
    def forward(self, x):
        size = 3
        coords = torch.arange(1, size + 1).to(x)
        weight = (coords - 0.5) ** 2
        weight = torch.exp(-(weight[None, :] + weight[:, None]) / 1.2)
        total = x.new_zeros(x.size(0))
        for m in range(size):
            for n in range(size):
                if weight[m, n] < 0.05:
                    weight[m, n] = 0
                    continue
                total = total + weight[m, n] * x[:, m::size, n::size].mean(dim=(1, 2))
        return total / weight.sum()


def build() -> nn.Module:
    return WeightedBlocks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "h", 2: "w"}}
TEST_LINE = "                if weight[m, n] < 0.05:"
