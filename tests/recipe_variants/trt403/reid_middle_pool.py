"""A re-identification backbone's pooled feature squeezed with ``torch.squeeze`` (the function, no axis) before its
classifier.

Reduced from layumi/Person_reID_baseline_pytorch @ 82ff40fb11b7353400dc8670dcec620d97285096, model.py:366-369
(``ft_net_middle``: ``x = self.model.avgpool(x)``, ``x = torch.squeeze(x)``, ``x = self.classifier(x)``), written
here in our own words with a two-layer backbone and a Linear-ReLU-Linear classifier.
"""

import torch
from torch import nn


class MiddleNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 12, 3, padding=1))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Sequential(nn.Linear(12, 6), nn.ReLU(), nn.Linear(6, 4))

    def forward(self, x):
        x = self.body(x)
        x = self.avgpool(x)
        x = torch.squeeze(x)
        x = self.classifier(x)
        return x


def build() -> nn.Module:
    return MiddleNet()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 9, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
