"""Autoformer's series decomposition: the trend is a moving average along time, an ``nn.AvgPool1d``
built with keywords in ``__init__`` (stride 1, no padding) and called on the series permuted to
``(B, C, L)`` after both ends were padded by repeating the first and last step.

Reduced from thuml/Autoformer at commit 51c7d416ae120b805fd5beef2f4ccf7de496a6ff,
layers/Autoformer_EncDec.py, ``moving_avg.__init__`` line 27 (``nn.AvgPool1d(kernel_size=...,
stride=stride, padding=0)``), ``moving_avg.forward`` lines 29-36 (the repeated ends, ``torch.cat``
along time, the pool over ``x.permute(0, 2, 1)`` and back), ``series_decomp`` lines 39-50 (the
residual ``x - moving_mean``) and ``EncoderLayer.forward`` lines 68-79 (decompose, the 1x1
convolutions, decompose again). Written here in our own words: the auto-correlation attention is
left out (the input goes straight to the first decomposition), the kernel is Autoformer's default
25, the model is small.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MovingAverage(nn.Module):
    def __init__(self, kernel_size: int, stride: int) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

    def forward(self, series: torch.Tensor) -> torch.Tensor:
        reach = (self.kernel_size - 1) // 2
        first = series[:, 0:1, :].repeat(1, reach, 1)
        last = series[:, -1:, :].repeat(1, reach, 1)
        padded = torch.cat([first, series, last], dim=1)
        return self.avg(padded.permute(0, 2, 1)).permute(0, 2, 1)


class SeriesDecomposition(nn.Module):
    def __init__(self, kernel_size: int) -> None:
        super().__init__()
        self.moving_avg = MovingAverage(kernel_size, stride=1)

    def forward(self, series: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        trend = self.moving_avg(series)
        return series - trend, trend


class DecomposingEncoderLayer(nn.Module):
    def __init__(self, d_model: int = 8, d_ff: int = 16, moving_avg: int = 25) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1, bias=False)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1, bias=False)
        self.decomp1 = SeriesDecomposition(moving_avg)
        self.decomp2 = SeriesDecomposition(moving_avg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x, _ = self.decomp1(x)
        y = F.relu(self.conv1(x.transpose(-1, 1)))
        y = self.conv2(y).transpose(-1, 1)
        seasonal, _ = self.decomp2(x + y)
        return seasonal


def build() -> nn.Module:
    return DecomposingEncoderLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 24, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "length"}}
