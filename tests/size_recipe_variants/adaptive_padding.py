"""``math.ceil`` and ``max`` of sizes in a helper: mmcv's adaptive ("same") padding.

Reduced from open-mmlab/mmcv @ a8073c74bf83d62ec36a103f835faa4837fb6585,
mmcv/cnn/bricks/transformer.py:122-131 (``get_pad_shape(self, input_shape)``: ``math.ceil(input_h /
stride_h)``, ``max(... - input_h, 0)``) and :143 (``forward`` passes ``x.size()[-2:]``), written
here in our own words; the ``if pad_h > 0 or pad_w > 0`` guard of the original is left out
(padding by zero is the same).
"""

import math

import torch.nn.functional as F
import torch
from torch import nn


class AdaptivePadding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.kernel_size = (3, 3)
        self.stride = (2, 2)
        self.dilation = (1, 1)

    def get_pad_shape(self, input_shape):
        input_h, input_w = input_shape
        kernel_h, kernel_w = self.kernel_size
        stride_h, stride_w = self.stride
        output_h = math.ceil(input_h / stride_h)
        output_w = math.ceil(input_w / stride_w)
        pad_h = max((output_h - 1) * stride_h + (kernel_h - 1) * self.dilation[0] + 1 - input_h, 0)
        pad_w = max((output_w - 1) * stride_w + (kernel_w - 1) * self.dilation[1] + 1 - input_w, 0)
        return pad_h, pad_w

    def forward(self, x):
        pad_h, pad_w = self.get_pad_shape(x.size()[-2:])
        return F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])


def build() -> nn.Module:
    return AdaptivePadding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 6, 7, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
