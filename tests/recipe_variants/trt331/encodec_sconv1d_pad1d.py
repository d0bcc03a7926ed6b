"""EnCodec's streaming convolution: reflection padding with an extra zero pad for inputs too short to reflect.

Reduced from facebookresearch/encodec at commit 0e2d0aed29362c8e8f52494baf3e6f99056b214f,
encodec/modules/conv.py: ``get_extra_padding_for_conv1d`` (lines 54-61), ``pad1d`` (lines 79-96)
and ``SConv1d.forward`` (lines 195-211). ``SConv1d`` works out the total padding from the
convolution's kernel, stride and dilation and the extra right padding that makes the last window
full (``math.ceil`` of the frame count), and pads through ``pad1d``: in ``reflect`` mode ``pad1d``
binds ``extra_pad = 0``, and when the length is at most the larger side's pad it sets
``extra_pad = max_pad - length + 1`` and zero-pads the right by it before the reflection, then cuts
it off again. Written here in our own words; the normalization wrappers are left out (plain
``nn.Conv1d``), and two convolutions in a row (a stride-1 stem and a stride-2 downsampling) stand
for SEANet's encoder.
"""

import math
import typing as tp

import torch
import torch.nn.functional as F
from torch import nn


def get_extra_padding_for_conv1d(x: torch.Tensor, kernel_size: int, stride: int, padding_total: int = 0) -> int:
    length = x.shape[-1]
    n_frames = (length - kernel_size + padding_total) / stride + 1
    ideal_length = (math.ceil(n_frames) - 1) * stride + (kernel_size - padding_total)
    return ideal_length - length


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
        end = padded.shape[-1] - extra_pad
        return padded[..., :end]
    return F.pad(x, paddings, mode, value)


class SConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 dilation: int = 1, causal: bool = False, pad_mode: str = "reflect") -> None:
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride, dilation=dilation)
        self.causal = causal
        self.pad_mode = pad_mode

    def forward(self, x):
        kernel_size = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        dilation = self.conv.dilation[0]
        padding_total = (kernel_size - 1) * dilation - (stride - 1)
        extra_padding = get_extra_padding_for_conv1d(x, kernel_size, stride, padding_total)
        if self.causal:
            x = pad1d(x, (padding_total, extra_padding), mode=self.pad_mode)
        else:
            padding_right = padding_total // 2
            padding_left = padding_total - padding_right
            x = pad1d(x, (padding_left, padding_right + extra_padding), mode=self.pad_mode)
        return self.conv(x)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = SConv1d(1, 4, kernel_size=7)
        self.down = SConv1d(4, 6, kernel_size=4, stride=2)

    def forward(self, x):
        return self.down(torch.nn.functional.elu(self.stem(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Encoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 40, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "length"}}
