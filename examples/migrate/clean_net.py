"""A model whose graph is already TensorRT-clean: ``migrate`` changes nothing and exits 0.

``check`` reports the ``torch.where`` (TRT102), but TensorRT takes the ``Where`` node it
exports, so the migration lists the finding as information and leaves the file alone.

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
