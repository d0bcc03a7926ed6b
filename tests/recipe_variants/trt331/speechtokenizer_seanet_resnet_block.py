"""SpeechTokenizer's SEANet residual block: a dilated reflection-padded convolution whose pad helper
adds an extra zero pad, with its amount, only when the input is too short to reflect.

Reduced from ZhangXInFD/SpeechTokenizer at commit 30c96fb32a9fc06a2258c98119e237def051e46c:
speechtokenizer/modules/conv.py, ``get_extra_padding_for_conv1d`` (lines 54-61), ``pad1d``
(lines 79-96: ``extra_pad = 0``, then, when the length is at most the larger side, the amount
``max_pad - length + 1`` and the zero pad on the right, cut off again after the reflection) and
``SConv1d.forward`` (lines 195-210, the total padding written ``(kernel_size - 1) * dilation -
(stride - 1)``); speechtokenizer/modules/seanet.py, ``SEANetResnetBlock`` (lines 39-81: ELU, a
kernel-3 convolution with dilation, a kernel-1 convolution back to the width, plus a kernel-1
``SConv1d`` shortcut). Written here in our own words: plain ``nn.Conv1d`` instead of the weight-norm
wrapper; a kernel-7 stem, one residual block with dilation 3 and a stride-2 downsampling stand for
the encoder (the LSTM and the other stages are left out).
"""

import math
import typing as tp

import torch
import torch.nn.functional as F
from torch import nn


def get_extra_padding_for_conv1d(x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0) -> int:
    length = x.shape[-1]
    frames = (length - kernel_size + padding_total) / stride + 1
    wanted = (math.ceil(frames) - 1) * stride + (kernel_size - padding_total)
    return wanted - length


def pad1d(x: torch.Tensor, paddings: tp.Tuple[int, int], mode: str = "zero", value: float = 0.0):
    length = x.shape[-1]
    padding_left, padding_right = paddings
    assert padding_left >= 0 and padding_right >= 0, (padding_left, padding_right)
    if mode == "reflect":
        max_pad = max(padding_left, padding_right)
        extra_pad = 0
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            x = F.pad(x, (0, extra_pad))
        padded = F.pad(x, paddings, mode, value)
        return padded[..., : padded.shape[-1] - extra_pad]
    return F.pad(x, paddings, mode, value)


class SConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, pad_mode: str = "reflect") -> None:
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        self.pad_mode = pad_mode

    def forward(self, x):
        kernel_size = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        dilation = self.conv.dilation[0]
        padding_total = (kernel_size - 1) * dilation - (stride - 1)
        extra_padding = get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total)
        padding_right = padding_total // 2
        padding_left = padding_total - padding_right
        x = pad1d(x, (padding_left, padding_right + extra_padding), mode=self.pad_mode)
        return self.conv(x)


class ResnetBlock(nn.Module):
    def __init__(self, dim: int, dilation: int, compress: int = 2) -> None:
        super().__init__()
        hidden = dim // compress
        self.block = nn.Sequential(nn.ELU(), SConv1d(dim, hidden, kernel_size=3, dilation=dilation),
                                   nn.ELU(), SConv1d(hidden, dim, kernel_size=1))
        self.shortcut = SConv1d(dim, dim, kernel_size=1)

    def forward(self, x):
        return self.shortcut(x) + self.block(x)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = SConv1d(1, 4, kernel_size=7)
        self.residual = ResnetBlock(4, dilation=3)
        self.down = SConv1d(4, 8, kernel_size=4, stride=2)

    def forward(self, x):
        return self.down(F.elu(self.residual(self.stem(x))))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 36, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
