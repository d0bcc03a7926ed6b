"""HPE's Deep Learning Benchmarking Suite AlexNet: keyword LRN modules before the pooling.

Reduced from HewlettPackard/dlcookbook-dlbs at commit 8f953918efc41de684507734351b7b226066cbb6,
python/pytorch_benchmarks/models/alexnet.py, ``AlexNet.__init__`` (lines 29-65: ``self.features``
is an ``nn.Sequential`` with ``nn.LocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=2)`` after
the first and the second ReLU, each before a max pooling) and ``AlexNet.forward`` (lines 67-71:
features, ``view(x.size(0), 256 * 6 * 6)``, classifier). Written here in our own words with
narrow convolutions and small images, the view's size written for them; the benchmark's
``Model`` base class (parameter checks) is left out.
"""

import torch
from torch import nn


class AlexNet(nn.Module):
    def __init__(self, num_classes: int = 4) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=5, stride=2),
            nn.ReLU(inplace=True),
            nn.LocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=2),
            nn.MaxPool2d(kernel_size=3, stride=2),

            nn.Conv2d(8, 12, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.LocalResponseNorm(size=5, alpha=0.0001, beta=0.75, k=2),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(12 * 2 * 2, 16),
            nn.ReLU(inplace=True),
            nn.Dropout(),
            nn.Linear(16, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), 12 * 2 * 2)
        x = self.classifier(x)
        return x


def build() -> nn.Module:
    return AlexNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 27, 27, generator=generator) * 20,)


DYNAMIC = {"x": {0: "batch"}}
