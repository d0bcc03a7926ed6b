"""A CIFAR DenseNet's head: the last block's map normalized, average-pooled by its full size (8), squeezed with
``torch.squeeze`` (no axis), then the classifier and a log-softmax.

Reduced from bamos/densenet.pytorch @ d1cd5e1957975628286e516512c6d1c14430f810, densenet.py:114-115
(``out = torch.squeeze(F.avg_pool2d(F.relu(self.bn1(out)), 8))``, ``out = F.log_softmax(self.fc(out))``), written
here in our own words with one convolution for the dense blocks (the softmax axis named: the last, as the implicit
choice is for 1-D and 2-D inputs).
"""

import torch
import torch.nn.functional as F
from torch import nn


class DenseHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.Conv2d(3, 7, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(7)
        self.fc = nn.Linear(7, 5)

    def forward(self, x):
        out = self.blocks(x)
        out = torch.squeeze(F.avg_pool2d(F.relu(self.bn1(out)), 8))
        out = F.log_softmax(self.fc(out), dim=-1)
        return out


def build() -> nn.Module:
    return DenseHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
