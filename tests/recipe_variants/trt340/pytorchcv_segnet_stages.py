"""pytorchcv's SegNet: pooling and unpooling units built in loops and registered with ``add_module``.

Reduced from pytorchcv 0.0.74 (the PyPI package), pytorchcv/models/segnet.py, ``SegNet.__init__``
and ``forward`` (lines 38-123): each down stage an ``nn.Sequential`` whose last unit is
``unit = nn.MaxPool2d(kernel_size=2, stride=2, return_indices=True)``, so the stage returns the
pair (``x, max_indices1 = self.down_stage1(x)``); each up stage a ``DualPathSequential`` whose first
unit is ``unit = nn.MaxUnpool2d(kernel_size=2, stride=2)``, called as ``module(x1, x2)`` with the
indices as the second path (pytorchcv/models/common/ ``DualPathSequential``, its
``dual_path_scheme`` a lambda, and ``last_ordinals`` units that take the first path only). The
units are bound to one name, ``unit``, in both loops. Two stages each way, one convolution per
stage. Written here in our own words, the dual-path container in a few lines.
"""

import torch
from torch import nn


class DualPathSequential(nn.Sequential):
    def __init__(self, return_two=True, first_ordinals=0, last_ordinals=0,
                 dual_path_scheme=(lambda module, x1, x2: module(x1, x2))):
        super().__init__()
        self.return_two = return_two
        self.first_ordinals = first_ordinals
        self.last_ordinals = last_ordinals
        self.dual_path_scheme = dual_path_scheme

    def forward(self, x1, x2=None):
        length = len(self._modules.values())
        for i, module in enumerate(self._modules.values()):
            if (i < self.first_ordinals) or (i >= length - self.last_ordinals):
                x1 = module(x1)
            else:
                x1, x2 = self.dual_path_scheme(module, x1, x2)
        return (x1, x2) if self.return_two else x1


def conv3x3_block(in_channels, out_channels):
    return nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, padding=1), nn.BatchNorm2d(out_channels), nn.ReLU())


class SegNet(nn.Module):
    def __init__(self, channels=((4, 8), (4, 4)), layers=((2, 2), (2, 2)), in_channels=3, num_classes=3):
        super().__init__()
        down_idx = 0
        up_idx = 1
        for i, out_channels in enumerate(channels[down_idx]):
            stage = nn.Sequential()
            for j in range(layers[down_idx][i]):
                if j < layers[down_idx][i] - 1:
                    unit = conv3x3_block(in_channels, out_channels)
                else:
                    unit = nn.MaxPool2d(
                        kernel_size=2,
                        stride=2,
                        return_indices=True)
                stage.add_module("unit{}".format(j + 1), unit)
                in_channels = out_channels
            setattr(self, "down_stage{}".format(i + 1), stage)
        for i, channels_per_stage in enumerate(channels[up_idx]):
            stage = DualPathSequential(
                return_two=False,
                last_ordinals=(layers[up_idx][i] - 1),
                dual_path_scheme=(lambda module, x1, x2: (module(x1, x2), x2)))
            for j in range(layers[up_idx][i]):
                out_channels = in_channels if j < layers[up_idx][i] - 1 else channels_per_stage
                if j == 0:
                    unit = nn.MaxUnpool2d(
                        kernel_size=2,
                        stride=2)
                else:
                    unit = conv3x3_block(in_channels, out_channels)
                stage.add_module("unit{}".format(j + 1), unit)
                in_channels = out_channels
            setattr(self, "up_stage{}".format(i + 1), stage)
        self.head = nn.Conv2d(in_channels, num_classes, 3, padding=1)

    def forward(self, x):
        x, max_indices1 = self.down_stage1(x)
        x, max_indices2 = self.down_stage2(x)
        x = self.up_stage1(x, max_indices2)
        x = self.up_stage2(x, max_indices1)
        return self.head(x)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SegNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
