"""SpeechBrain's ``ConvTranspose1d`` wrapper: (batch, time, channel) in and out, an ``output_size`` handed on to
the ``nn.ConvTranspose1d`` it keeps, here restoring a strided encoder's time length.

Reduced from speechbrain/speechbrain @ 9c826ef3937bac885c8a6ca86c6889a30f256fb5, speechbrain/nnet/CNN.py:
``ConvTranspose1d`` (line 782) builds ``self.conv = nn.ConvTranspose1d(in_channels, out_channels,
self.kernel_size, stride=self.stride, dilation=self.dilation, padding=padding_value, groups=groups,
bias=bias)`` (lines 969-978), wraps it in ``nn.utils.weight_norm`` when asked, and its forward
transposes time to the last axis, calls ``wx = self.conv(x, output_size=output_size)`` (line 1005) and
transposes back; its docstring pairs it with a stride-2 ``Conv1d`` and restores the signal's length with
``conv_t(conv_out, output_size=[100])`` (line 859). Here the length is the input's own,
``output_size=[signal.shape[1]]``, and the restored signal is added back to a projection of the input (a
residual), so the time length must match. Written in our own words; integer padding only.
"""

import torch
from torch import nn


class TransposedConv1d(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 weight_norm: bool = False, skip_transpose: bool = False) -> None:
        super().__init__()
        self.skip_transpose = skip_transpose
        self.conv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        if weight_norm:
            self.conv = nn.utils.weight_norm(self.conv)

    def forward(self, x, output_size=None):
        if not self.skip_transpose:
            x = x.transpose(1, -1)
        wx = self.conv(x, output_size=output_size)
        if not self.skip_transpose:
            wx = wx.transpose(1, -1)
        return wx


class Codec(nn.Module):
    def __init__(self, channels: int = 3, hidden: int = 8) -> None:
        super().__init__()
        self.encode = nn.Conv1d(channels, hidden, 3, stride=2, padding=1)
        self.decode = TransposedConv1d(hidden, channels, kernel_size=3, stride=2, padding=1)
        self.residual = nn.Linear(channels, channels)

    def forward(self, signal):
        encoded = torch.tanh(self.encode(signal.transpose(1, 2))).transpose(1, 2)
        restored = self.decode(encoded, output_size=[signal.shape[1]])
        return restored + self.residual(signal)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Codec().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 40, 3, generator=generator),)


DYNAMIC = {"signal": {0: "batch", 1: "time"}}
