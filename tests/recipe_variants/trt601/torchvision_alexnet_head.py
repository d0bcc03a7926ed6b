"""AlexNet's classifier head: a fixed 6x6 grid pooled from a feature map of any size.

Reduced from torchvision 0.29.1 (the PyPI wheel the second zoo unpacks),
torchvision/models/alexnet.py, ``AlexNet.__init__`` line 36 (``self.avgpool =
nn.AdaptiveAvgPool2d((6, 6))``) and ``AlexNet.forward`` lines 47-52 (features, the pool,
``torch.flatten(x, 1)``, the classifier). Written here in our own words: two small convolutions
stand in for the features and one ``Linear`` for the classifier; the pool, its tuple literal in
``__init__`` and the flatten are as in torchvision.
"""

import torch
from torch import nn


class AlexNetHead(nn.Module):
    def __init__(self, num_classes: int = 5) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, kernel_size=3, padding=1), nn.ReLU(inplace=True))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Linear(4 * 6 * 6, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def build() -> nn.Module:
    return AlexNetHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 18, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
