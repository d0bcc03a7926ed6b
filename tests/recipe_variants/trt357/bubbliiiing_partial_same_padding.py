"""bubbliiiing's EfficientDet: the block convolutions come from a factory, ``partial(Conv2dStaticSamePadding,
image_size=...)``, whose ``nn.Conv2d`` gets the one-element stride of a literal block table.

Reduced from bubbliiiing/efficientdet-pytorch @ 172bd8c85daeba96a03b955e6c4776a1afd99cca: nets/efficientnet.py
lists the blocks as ``BlockArgs(kernel_size=3, ..., stride=[2], se_ratio=0.25)`` (lines 14-20) and builds
each ``MBConvBlock`` with ``Conv2d = get_same_padding_conv2d(image_size=global_params.image_size)`` (line
29), ``self._depthwise_conv = Conv2d(..., kernel_size=k, stride=s, bias=False)`` (line 60);
nets/layers.py's ``get_same_padding_conv2d`` returns ``partial(Conv2dStaticSamePadding,
image_size=image_size)`` (lines 61-67), a module that takes ``**kwargs`` and builds
``self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, bias=bias,
groups=groups)`` (line 284), repeats its own copy of the stride when ``len(self.stride) == 1`` (line
292) and pads "same" in forward; nets/efficientdet.py:445 keeps the maps before the blocks whose
``block._depthwise_conv.stride == [2, 2]``. Written here in our own words: three blocks, no
squeeze-excitation, no drop connect.
"""

import math
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

#: (kernel, expand ratio, input filters, output filters, stride), as the repository's block table lists them.
BLOCKS = ((3, 1, 8, 8, [1]), (3, 4, 8, 12, [2]), (5, 4, 12, 16, [2]))


class StaticSamePadConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, bias=True, groups=1, dilation=1, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, bias=bias, groups=groups)
        self.stride = self.conv.stride
        self.kernel_size = self.conv.kernel_size
        if isinstance(self.stride, int):
            self.stride = [self.stride] * 2
        elif len(self.stride) == 1:
            self.stride = [self.stride[0]] * 2
        if len(self.kernel_size) == 1:
            self.kernel_size = [self.kernel_size[0]] * 2

    def forward(self, x):
        h, w = x.shape[-2:]
        sh, sw = self.stride
        kh, kw = self.kernel_size
        # TensorFlow's "same": the padding that makes the output ceil(size / stride), more of it at the end
        pad_w = (math.ceil(w / sw) - 1) * sw - w + kw
        pad_h = (math.ceil(h / sh) - 1) * sh - h + kh
        return self.conv(F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2]))


def same_padding_conv(image_size=None):
    return partial(StaticSamePadConv, image_size=image_size)


class Block(nn.Module):
    def __init__(self, kernel: int, expand: int, cin: int, cout: int, stride, image_size) -> None:
        super().__init__()
        Conv2d = same_padding_conv(image_size=image_size)
        mid = cin * expand
        self.expand = Conv2d(in_channels=cin, out_channels=mid, kernel_size=1, bias=False) if expand != 1 else None
        self._depthwise_conv = Conv2d(in_channels=mid, out_channels=mid, groups=mid, kernel_size=kernel,
                                      stride=stride, bias=False)
        self._project_conv = Conv2d(in_channels=mid, out_channels=cout, kernel_size=1, bias=False)
        self.skip = stride == [1] and cin == cout

    def forward(self, inputs):
        x = inputs if self.expand is None else F.silu(self.expand(inputs))
        x = self._project_conv(F.silu(self._depthwise_conv(x)))
        return x + inputs if self.skip else x


class Backbone(nn.Module):
    def __init__(self, image_size: int = 64) -> None:
        super().__init__()
        Conv2d = same_padding_conv(image_size=image_size)
        self._conv_stem = Conv2d(3, 8, kernel_size=3, stride=2, bias=False)
        self._blocks = nn.ModuleList(Block(*args, image_size) for args in BLOCKS)

    def forward(self, inputs):
        x = F.silu(self._conv_stem(inputs))
        feature_maps = []
        last_x = x
        for idx, block in enumerate(self._blocks):
            x = block(x)
            if block._depthwise_conv.stride == [2, 2]:
                feature_maps.append(last_x)
            elif idx == len(self._blocks) - 1:
                feature_maps.append(x)
            last_x = x
        return x, feature_maps[0], feature_maps[1]


def build() -> nn.Module:
    torch.manual_seed(0)
    return Backbone().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 30, generator=generator),)


DYNAMIC = {"inputs": {0: "b", 2: "h", 3: "w"}}
