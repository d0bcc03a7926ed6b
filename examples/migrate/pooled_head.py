"""A head that does not export before the migration: adaptive pooling on a dynamic H/W.

The TorchScript exporter refuses ``AdaptiveAvgPool2d((2, 2))`` when the input's height and
width are dynamic ("input size not accessible"). TRT601 (safe) replaces it with exact bins.

    trtcodemod migrate examples/migrate/pooled_head.py --model build --inputs inputs \\
        --dynamic-axes '{"x": {"2": "height", "3": "width"}}'
"""

import torch
from torch import nn


class PooledHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d((2, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(torch.relu(self.conv(x))).flatten(1)


def build() -> nn.Module:
    return PooledHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 8, 8, generator=generator),)
