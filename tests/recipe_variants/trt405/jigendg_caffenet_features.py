"""JiGen's Caffe AlexNet: LRN modules built with positional arguments in a named nn.Sequential.

Reduced from fmcarlucci/JigenDG at commit 35f84f26e33a65c49c9e421ba6ad0f5cbcc6ce00,
models/caffenet.py, ``AlexNetCaffe.__init__`` (lines 12-43: ``self.features`` is an
``nn.Sequential(OrderedDict([...]))`` with ``("norm1", nn.LocalResponseNorm(5, 1.e-4, 0.75))``
after the first pooling (line 20) and ``norm2`` after the second (line 24), the pooling with
``ceil_mode=True``) and ``AlexNetCaffe.forward`` (lines 62-67: the input scaled by 57.6 to
Caffe's range, the features flattened with ``view(x.size(0), -1)``, two linear heads). Written
here in our own words with narrow convolutions, one linear layer in the classifier and small
images; the grouped convolutions keep their groups.
"""

from collections import OrderedDict

import torch
from torch import nn


class AlexNetCaffe(nn.Module):
    def __init__(self, jigsaw_classes: int = 5, n_classes: int = 3) -> None:
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv1", nn.Conv2d(3, 8, kernel_size=5, stride=2)),
            ("relu1", nn.ReLU(inplace=True)),
            ("pool1", nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)),
            ("norm1", nn.LocalResponseNorm(5, 1.e-4, 0.75)),
            ("conv2", nn.Conv2d(8, 12, kernel_size=3, padding=1, groups=2)),
            ("relu2", nn.ReLU(inplace=True)),
            ("pool2", nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)),
            ("norm2", nn.LocalResponseNorm(5, 1.e-4, 0.75)),
            ("conv3", nn.Conv2d(12, 8, kernel_size=3, padding=1, groups=2)),
            ("relu3", nn.ReLU(inplace=True)),
        ]))
        self.classifier = nn.Sequential(OrderedDict([
            ("fc6", nn.Linear(8 * 3 * 3, 16)),
            ("relu6", nn.ReLU(inplace=True)),
        ]))
        self.jigsaw_classifier = nn.Linear(16, jigsaw_classes)
        self.class_classifier = nn.Linear(16, n_classes)

    def forward(self, x):
        x = self.features(x * 57.6)
        x = x.view(x.size(0), -1)
        x = self.classifier(x)
        return self.jigsaw_classifier(x), self.class_classifier(x)


def build() -> nn.Module:
    return AlexNetCaffe().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 27, 27, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
