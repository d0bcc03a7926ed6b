"""EfficientDet's EfficientNet block convolutions: TensorFlow-style "same" padding computed in
forward, then an ``nn.Conv2d`` built in ``__init__`` with the one-element stride the block strings
decode to.

Reduced from zylo117/Yet-Another-EfficientDet-Pytorch at commit 15403b5371a64defb2a7c74e162c6e880a7f462c,
efficientnet/utils_extra.py lines 9-47 (``Conv2dStaticSamePadding``: line 16
``self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, bias=bias, groups=groups)``,
its own copy of the stride repeated when ``len(self.stride) == 1``, lines 36-37
``extra_h = (math.ceil(w / self.stride[1]) - 1) * self.stride[1] - w + self.kernel_size[1]``, the
``F.pad`` and line 46 ``x = self.conv(x)``), with the block strides of efficientnet/utils.py
(``stride=[int(options['s'][0])]`` in ``BlockDecoder._decode_block_string``) and the depthwise
convolution of efficientnet/model.py's ``MBConvBlock``, and efficientdet/model.py:451, which keeps the
feature maps of the blocks whose ``_depthwise_conv.stride == [2, 2]``. Written here in our own words: a
stem, one expanded depthwise block and a projection instead of the whole network; no squeeze-excitation.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class SamePadConv(nn.Module):
    def __init__(self, cin: int, cout: int, kernel_size: int, stride=1, bias: bool = True, groups: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, bias=bias, groups=groups)
        self.stride = self.conv.stride
        self.kernel_size = self.conv.kernel_size
        if len(self.stride) == 1:
            self.stride = [self.stride[0]] * 2

    def forward(self, x):
        h, w = x.shape[-2:]
        extra_h = (math.ceil(w / self.stride[1]) - 1) * self.stride[1] - w + self.kernel_size[1]
        extra_v = (math.ceil(h / self.stride[0]) - 1) * self.stride[0] - h + self.kernel_size[0]
        left = extra_h // 2
        top = extra_v // 2
        x = F.pad(x, [left, extra_h - left, top, extra_v - top])
        x = self.conv(x)
        return x


def decode_stride(block: str) -> list:
    # "s22" -> [2]: the block string's first stride digit, in a one-element list.
    return [int(block[1])]


class TinyEfficientNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = SamePadConv(3, 8, 3, stride=decode_stride("s22"), bias=False)
        self.expand = SamePadConv(8, 16, 1, bias=False)
        self.depthwise = SamePadConv(16, 16, 3, stride=decode_stride("s11"), groups=16, bias=False)
        self.down = SamePadConv(16, 16, 5, stride=decode_stride("s22"), groups=16, bias=False)
        self.project = SamePadConv(16, 8, 1)

    def forward(self, x):
        # efficientdet/model.py:451 picks the feature maps by `block._depthwise_conv.stride == [2, 2]`,
        # the list the convolution wrapper made of the module's one-element stride.
        strided = []
        for block in (self.stem, self.expand, self.depthwise, self.down):
            x = F.silu(block(x))
            if block.stride == [2, 2]:
                strided.append(x)
        return self.project(x), strided[0]


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyEfficientNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 30, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
