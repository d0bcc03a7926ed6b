""""Same" padding computed from the input size, applied only when it is not zero: mmcv's AdaptivePadding.

Reduced from open-mmlab/mmcv @ a8073c74bf83d62ec36a103f835faa4837fb6585,
mmcv/cnn/bricks/transformer.py:122-145 (``get_pad_shape``: ``math.ceil(input_h / stride_h)``,
``max(... - input_h, 0)``; ``forward``: ``pad_h, pad_w = self.get_pad_shape(x.size()[-2:])`` and ``if
pad_h > 0 or pad_w > 0: x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h //
2])`` in "same" mode), written here in our own words. ``math.ceil``/``max`` of sizes is TRT712's; the
``if`` is TRT717's.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class AdaptivePadding(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.kernel_size = (2, 2)
        self.stride = (2, 2)
        self.conv = nn.Conv2d(2, 3, 2, stride=2)

    def get_pad_shape(self, input_shape):
        input_h, input_w = input_shape
        kernel_h, kernel_w = self.kernel_size
        stride_h, stride_w = self.stride
        output_h = math.ceil(input_h / stride_h)
        output_w = math.ceil(input_w / stride_w)
        pad_h = max((output_h - 1) * stride_h + kernel_h - input_h, 0)
        pad_w = max((output_w - 1) * stride_w + kernel_w - input_w, 0)
        return pad_h, pad_w

    def forward(self, x):
        pad_h, pad_w = self.get_pad_shape(x.size()[-2:])
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
        return self.conv(x)


def build() -> nn.Module:
    return AdaptivePadding()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 8, 8, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
