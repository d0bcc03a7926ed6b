"""quickdetection's EfficientDet backbone: the "simple padding" convolution, ``(kernel_size - 1) // 2`` on both
sides given to the ``nn.Conv2d`` itself, built with the one-element stride the block strings decode to.

Reduced from lianglin74/CoOp @ 1b0b82bcea1dea9bc91935cab480d218f2aea8b0, src/qd/layers/efficient_det.py:
``SimpleConv`` (lines 97-115) builds ``self.conv = nn.Conv2d(in_channels, out_channels, kernel_size,
stride=stride, bias=bias, groups=groups, padding=(kernel_size - 1) // 2)`` and keeps its own copy of the
stride, repeated when ``len(self.stride) == 1``; its forward is ``self.conv(x)`` alone (no padding read from
the sizes). ``BlockDecoder._decode_block_string`` gives ``stride=[int(options['s'][0])]`` (line 934),
``MBConvBlock`` builds ``self._depthwise_conv = SimpleConv(..., kernel_size=k, stride=s, bias=False)``
(lines 832-834) and ``EfficientNetD.forward`` keeps the maps before the blocks whose
``block._depthwise_conv.stride == [2, 2]`` (line 1288) and returns ``feature_maps[1:]``. Written here in
our own words: a stem, four blocks without squeeze-excitation or drop connect.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SymmetricPadConv(nn.Module):
    def __init__(self, cin: int, cout: int, kernel_size: int, stride=1, bias: bool = True, groups: int = 1) -> None:
        super().__init__()
        assert kernel_size % 2 == 1
        self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, bias=bias, groups=groups,
                              padding=(kernel_size - 1) // 2)
        self.stride = self.conv.stride
        if isinstance(self.stride, int):
            self.stride = [self.stride] * 2
        elif len(self.stride) == 1:
            self.stride = [self.stride[0]] * 2
        else:
            self.stride = list(self.stride)

    def forward(self, x):
        return self.conv(x)


def block_stride(block: str) -> list:
    # "k3_s22" -> [2]: the stride digits must agree, and only the first is kept, in a list
    digits = block.split("_s")[1]
    assert len(digits) == 1 or digits[0] == digits[1]
    return [int(digits[0])]


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, expand: int, kernel: int, code: str) -> None:
        super().__init__()
        mid = cin * expand
        self.expand = SymmetricPadConv(cin, mid, 1, bias=False) if expand != 1 else None
        self._depthwise_conv = SymmetricPadConv(mid, mid, kernel, stride=block_stride(code), groups=mid, bias=False)
        self.project = SymmetricPadConv(mid, cout, 1, bias=False)

    def forward(self, x):
        y = x if self.expand is None else F.silu(self.expand(x))
        return self.project(F.silu(self._depthwise_conv(y)))


class Backbone(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = SymmetricPadConv(3, 8, 3, stride=2, bias=False)
        codes = ((8, 8, 1, 3, "k3_s11"), (8, 12, 4, 3, "k3_s22"), (12, 16, 4, 5, "k5_s22"), (16, 16, 2, 3, "k3_s11"))
        self.blocks = nn.ModuleList(Block(*code) for code in codes)

    def forward(self, x):
        # EfficientNetD: the map before each stride-2 block, and the last block's; the first is dropped
        x = F.silu(self.stem(x))
        last_x = None
        feature_maps = []
        for idx, block in enumerate(self.blocks):
            x = block(x)
            strided = block._depthwise_conv.stride == [2, 2]  # the wrapper's own two-element copy
            if strided or idx == len(self.blocks) - 1:
                feature_maps.append(last_x if strided else x)
            last_x = x
        del last_x
        return tuple(feature_maps[1:])


def build() -> nn.Module:
    torch.manual_seed(0)
    return Backbone().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 24, 30, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
