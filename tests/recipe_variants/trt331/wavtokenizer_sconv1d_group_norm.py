"""WavTokenizer's encoder convolution: reflection padding through a helper that zero-pads a short
input first (the amount set, with the pad, only under a length test), then a time GroupNorm.

Reduced from jishengpeng/WavTokenizer at commit 5cf440d91ac420ca338f117b7003a77450d64730:
encoder/modules/conv.py, ``get_extra_padding_for_conv1d`` (lines 54-61), ``pad1d`` (lines 79-96:
``extra_pad = 0``; a length test on the larger side sets ``extra_pad = max_pad - length + 1`` and pads the
right by it; the reflection's result is cut by ``extra_pad`` afterwards), ``get_norm_module``
(lines 37-50, ``time_group_norm`` is ``nn.GroupNorm(1, channels)``) and ``SConv1d.forward``
(lines 195-211: the effective kernel ``(kernel_size - 1) * dilation + 1`` and the total padding
``kernel_size - stride``, split right/left for a non-causal layer). Written here in our own words:
the weight-norm wrapper is left out; a kernel-7 stem and one stride-4 downsampling (kernel 8, as
the encoder builds it from its ratio) stand for the SEANet encoder, each followed by the group norm.
"""

import math
import typing as tp

import torch
import torch.nn.functional as F
from torch import nn


def get_extra_padding_for_conv1d(x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0) -> int:
    length = x.shape[-1]
    n_frames = (length - kernel_size + padding_total) / stride + 1
    full = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
    return full - length


def pad1d(x: torch.Tensor, paddings: tp.Tuple[int, int], mode: str = "zero", value: float = 0.0):
    length = x.shape[-1]
    padding_left, padding_right = paddings
    assert padding_left >= 0 and padding_right >= 0, (padding_left, padding_right)
    if mode != "reflect":
        return F.pad(x, paddings, mode, value)
    max_pad = max(padding_left, padding_right)
    extra_pad = 0
    if length <= max_pad:
        extra_pad = max_pad - length + 1
        x = F.pad(x, (0, extra_pad))
    padded = F.pad(x, paddings, mode, value)
    end = padded.shape[-1] - extra_pad
    return padded[..., :end]


class SConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, pad_mode: str = "reflect") -> None:
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        self.norm = nn.GroupNorm(1, out_channels)
        self.pad_mode = pad_mode

    def forward(self, x):
        kernel_size = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        dilation = self.conv.dilation[0]
        kernel_size = (kernel_size - 1) * dilation + 1
        padding_total = kernel_size - stride
        extra_padding = get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total)
        padding_right = padding_total // 2
        padding_left = padding_total - padding_right
        x = pad1d(x, (padding_left, padding_right + extra_padding), mode=self.pad_mode)
        return self.norm(self.conv(x))


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = SConv1d(1, 4, kernel_size=7)
        self.down = SConv1d(4, 6, kernel_size=8, stride=4)

    def forward(self, x):
        return self.down(F.elu(self.stem(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 44, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
