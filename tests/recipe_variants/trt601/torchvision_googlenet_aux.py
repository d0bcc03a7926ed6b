"""GoogLeNet's auxiliary classifier: a functional 4x4 adaptive pool before a 1x1 convolution.

Reduced from torchvision 0.29.1 (the PyPI wheel the second zoo unpacks),
torchvision/models/googlenet.py, ``InceptionAux.forward`` lines 247-261
(``x = F.adaptive_avg_pool2d(x, (4, 4))``, a 1x1 ``conv_block``, ``torch.flatten(x, 1)``,
``F.relu(self.fc1(x), inplace=True)``, ``self.fc2``). Written here in our own words with small
channel counts; the functional call under ``import torch.nn.functional as F`` is the form kept.
"""

import torch
import torch.nn.functional as F
from torch import nn


class InceptionAux(nn.Module):
    def __init__(self, in_channels: int = 3, num_classes: int = 4) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, 2, kernel_size=1)
        self.fc1 = nn.Linear(2 * 4 * 4, 8)
        self.fc2 = nn.Linear(8, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(x, (4, 4))
        x = self.conv(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x), inplace=True)
        return self.fc2(x)


def build() -> nn.Module:
    return InceptionAux()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 14, 14, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
