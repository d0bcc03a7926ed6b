"""pytorchcv's TensorFlow-style "SAME" padding, computed from the input's size in forward.

Reduced from osmr/imgclsmob (PyPI pytorchcv 0.0.74), pytorchcv/models/efficientnet.py:18-56 and 117-121
(``calc_tf_padding``: ``height, width = x.size()[2:]``, ``oh = math.ceil(float(height) / stride)``, the padding
``max((oh - 1) * stride + (kernel_size - 1) * dilation + 1 - height, 0)``, split in halves; the depthwise unit pads
with ``F.pad(x, pad=calc_tf_padding(...))`` when ``tf_mode`` is set). Written here in our own words with one
stride-2 depthwise convolution. Form kept: ``math.ceil`` of ``float`` of a size divided by a keyword argument,
then ``max`` of arithmetic on it: the TorchScript export keeps the example's padding, so at an input size of other
parity the graph pads by the example's amount.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def calc_tf_padding(x, kernel_size, stride=1, dilation=1):
    height, width = x.size()[2:]
    oh = math.ceil(float(height) / stride)
    ow = math.ceil(float(width) / stride)
    pad_h = max((oh - 1) * stride + (kernel_size - 1) * dilation + 1 - height, 0)
    pad_w = max((ow - 1) * stride + (kernel_size - 1) * dilation + 1 - width, 0)
    return pad_h // 2, pad_h - pad_h // 2, pad_w // 2, pad_w - pad_w // 2


class DepthwiseTF(nn.Module):
    def __init__(self, channels=4, kernel_size=3, stride=2) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride
        self.conv = nn.Conv2d(channels, channels, kernel_size, stride=stride, groups=channels)

    def forward(self, x):
        x = F.pad(x, pad=calc_tf_padding(x, kernel_size=self.kernel_size, stride=self.stride))
        return self.conv(x)


def build() -> nn.Module:
    return DepthwiseTF().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 4, 16, 20, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
