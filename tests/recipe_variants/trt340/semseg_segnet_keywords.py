"""pytorch-semseg's SegNet blocks: the unpooling called with every argument by keyword.

Reduced from meetps/pytorch-semseg at 801fb200547caa5b0d91b8dde56b837da029f746,
ptsemseg/models/utils.py: ``segnetDown2`` (lines 208-220: ``self.maxpool_with_argmax =
nn.MaxPool2d(2, 2, return_indices=True)``, the size taken before pooling as ``unpooled_shape``
and returned with the output and indices) and ``segnetUp2`` (lines 240-251: ``self.unpool =
nn.MaxUnpool2d(2, 2)`` called as ``self.unpool(input=inputs, indices=indices,
output_size=output_shape)``), chained as in ptsemseg/models/segnet.py (lines 25-39). Two stages
of one convolution-batchnorm-relu each. Written here in our own words.
"""

import torch
from torch import nn


def conv_bn_relu(in_size, out_size):
    return nn.Sequential(nn.Conv2d(in_size, out_size, 3, 1, 1), nn.BatchNorm2d(out_size), nn.ReLU(inplace=True))


class segnetDown2(nn.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.conv1 = conv_bn_relu(in_size, out_size)
        self.maxpool_with_argmax = nn.MaxPool2d(2, 2, return_indices=True)

    def forward(self, inputs):
        outputs = self.conv1(inputs)
        unpooled_shape = outputs.size()
        outputs, indices = self.maxpool_with_argmax(outputs)
        return outputs, indices, unpooled_shape


class segnetUp2(nn.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.unpool = nn.MaxUnpool2d(2, 2)
        self.conv1 = conv_bn_relu(in_size, out_size)

    def forward(self, inputs, indices, output_shape):
        outputs = self.unpool(input=inputs, indices=indices, output_size=output_shape)
        outputs = self.conv1(outputs)
        return outputs


class segnet(nn.Module):
    def __init__(self, n_classes=3, in_channels=3):
        super().__init__()
        self.down1 = segnetDown2(in_channels, 4)
        self.down2 = segnetDown2(4, 8)
        self.up2 = segnetUp2(8, 4)
        self.up1 = segnetUp2(4, n_classes)

    def forward(self, inputs):
        down1, indices_1, unpool_shape1 = self.down1(inputs)
        down2, indices_2, unpool_shape2 = self.down2(down1)
        up2 = self.up2(down2, indices_2, unpool_shape2)
        up1 = self.up1(up2, indices_1, unpool_shape1)
        return up1


def build() -> nn.Module:
    torch.manual_seed(0)
    return segnet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 12, 9, generator=generator),)


DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
