"""Look-alike of constant tap gains that are written from the input before the branch: built from
configuration, then ``gains[2] = x.abs().mean()``, so the branch on them reads the data.

Our own model (the construct of piq 0.8.0 piq/dss.py:86-101, one weight overwritten by the input)."""

import torch
from torch import nn


class WrittenGains(nn.Module):
    def forward(self, x):
        taps = torch.linspace(-1.0, 1.0, 5, dtype=x.dtype, device=x.device)
        gains = torch.exp(-taps ** 2)
        gains[2] = x.abs().mean()
        out = torch.zeros_like(x[..., 0])
        for i in range(5):
            if gains[i] < 0.5:
                out = out + x[..., i]
                continue
            out = out + gains[i] * x[..., i]
        return out


def build() -> nn.Module:
    return WrittenGains()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "rows"}}
TEST_LINE = "            if gains[i] < 0.5:"
