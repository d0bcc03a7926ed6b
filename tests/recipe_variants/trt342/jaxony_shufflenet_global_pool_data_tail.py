"""jaxony's ShuffleNet: the classifier's global average pooling, its window the last two sizes read through ``x.data``.

Reduced from jaxony/ShuffleNet at e9bf42f0cda8dda518cafffd515654cc04584e7a, model.py, ``ShuffleNet.forward``
(lines 278-293; the pooling at line 287): after the stem (a 3x3 convolution with stride 2 and a 3x3 max
pooling) and the three stages, ``F.avg_pool2d(x, x.data.size()[-2:])`` averages each channel over its
whole map, the window the tensor's last two sizes taken from the end (``[-2:]``) and read through
``.data``; then ``x.view(x.size(0), -1)``, the fully-connected layer and ``log_softmax``. The stages are
one grouped 1x1 and one depthwise 3x3 convolution here (the shuffle units, whose channel shuffle reads
its sizes through ``x.data`` too, are left out). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class ShuffleNetHead(nn.Module):
    def __init__(self, classes: int = 6) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 24, kernel_size=3, stride=2, padding=1)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.stage = nn.Sequential(nn.Conv2d(24, 48, kernel_size=1, groups=3), nn.BatchNorm2d(48), nn.ReLU(),
                                   nn.Conv2d(48, 48, kernel_size=3, padding=1, groups=48), nn.BatchNorm2d(48))
        self.fc = nn.Linear(48, classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.maxpool(x)
        x = self.stage(x)
        x = F.avg_pool2d(x, x.data.size()[-2:])
        x = x.view(x.size(0), -1)
        x = self.fc(x)
        return F.log_softmax(x, dim=1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return ShuffleNetHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
