"""A model whose graph is already TensorRT-clean: ``migrate`` changes nothing and exits 0.

The ``torch.where`` exports as a ``Where`` node, which every TensorRT from 8.4 parses; for 8.6
nothing is reported. At ``--target 8.0`` both ``check`` (TRT102) and the graph check flag it,
and migrate blends the branches.

    trtcodemod migrate examples/migrate/clean_net.py --model build --inputs inputs
"""

import torch
from torch import nn


class CleanNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        y = torch.where(y > 0, y, 0.1 * y)
        return y.mean(dim=(2, 3))


def build() -> nn.Module:
    return CleanNet()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, 8, generator=generator),)
