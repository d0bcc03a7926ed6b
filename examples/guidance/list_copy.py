"""Miscellaneous 3, list copy: ``copy.deepcopy`` of a list of tensors in forward.

The TorchScript export freezes the copies into constants; the dynamo exporter refuses the model.
TRT722 routes the call through a helper that clones the tensors while exporting (safe: eager
code still calls ``copy.deepcopy``).
"""

import copy

import torch
from torch import nn


class Refine(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [x, x * 2]
        saved = copy.deepcopy(feats)
        feats[0] = self.proj(feats[0])
        return feats[0] + saved[1]


def build() -> nn.Module:
    return Refine()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, generator=generator),)
