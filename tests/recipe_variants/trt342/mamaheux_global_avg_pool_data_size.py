"""A small classifier ending in a GlobalAvgPool2d that pools the window ``(x.data.size()[2], x.data.size()[3])``.

Reduced from mamaheux/pytorch-exemple-calcul-canada, models/blocks.py (commit a253cc7): ``GlobalAvgPool2d``,
whose forward is one ``F.avg_pool2d`` call with the window read from ``x.data``'s sizes. The stem and the
head around it are ours. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class GlobalAvgPool2d(nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, (x.data.size()[2], x.data.size()[3]))


class Classifier(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2))
        self.pool = GlobalAvgPool2d()
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        pooled = self.pool(self.features(x))
        return self.head(pooled.flatten(1))


def build() -> nn.Module:
    return Classifier().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 19, 13, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
