"""DIRV's copy of the same-padding convolution (an earlier form of zylo117's): the padding from a
"cover length" of the strided kernel, the ``nn.Conv2d`` built with the one-element block stride.

Reduced from MVIG-SJTU/DIRV at commit 720e93999be6ae610c56bfbe0b0a4ace43ab0d7d,
efficientnet/utils_extra.py lines 9-52 (``Conv2dStaticSamePadding``: line 17
``self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, bias=bias, groups=groups)``,
lines 35-43 ``h_step = math.ceil(w / self.stride[1])``, ``h_cover_len = self.stride[1] * (h_step - 1) + 1 +
(self.kernel_size[1] - 1)``, ``extra_h = h_cover_len - w``, then ``F.pad`` and ``x = self.conv(x)``),
fed with the one-element strides of its EfficientNet block arguments. Written here in our own words:
two strided depthwise-separable stages; the block arguments are a tuple of lists.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

BLOCK_STRIDES = ([2], [1], [2])


class CoverPadConv(nn.Module):
    def __init__(self, cin: int, cout: int, kernel_size: int, stride=1, groups: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, groups=groups)
        self.stride = list(self.conv.stride) * (2 if len(self.conv.stride) == 1 else 1)
        self.kernel_size = self.conv.kernel_size

    def forward(self, x):
        h, w = x.shape[-2:]
        h_step = math.ceil(w / self.stride[1])
        v_step = math.ceil(h / self.stride[0])
        h_cover = self.stride[1] * (h_step - 1) + 1 + (self.kernel_size[1] - 1)
        v_cover = self.stride[0] * (v_step - 1) + 1 + (self.kernel_size[0] - 1)
        extra_h = h_cover - w
        extra_v = v_cover - h
        x = F.pad(x, [extra_h // 2, extra_h - extra_h // 2, extra_v // 2, extra_v - extra_v // 2])
        return self.conv(x)


class Stages(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layers = []
        channels = 3
        for stride in BLOCK_STRIDES:
            layers.append(CoverPadConv(channels, channels, 3, stride=stride, groups=channels))
            layers.append(CoverPadConv(channels, 6, 1))
            channels = 6
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def build() -> nn.Module:
    torch.manual_seed(0)
    return Stages().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 26, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
