"""Darts' N-HiTS (time-series forecasting): each block first pools the input window along time with
``nn.MaxPool1d`` or ``nn.AvgPool1d``, the class picked by a conditional expression into a local name
(``pool1d = nn.MaxPool1d if self.MaxPool1d else nn.AvgPool1d``) and built from that name with
keywords (``ceil_mode=True``); ``forward`` adds a channel axis, pools, and drops it again, then a stack of
linear layers gives the coefficients that a linear interpolation expands into the backcast and the
forecast; the stack subtracts each block's backcast from its input.

Reduced from unit8co/darts at commit 2be8e43fbdc1265209f33bbe8bae81f3e4d9146f,
darts/models/forecasting/nhits.py: ``_Block.__init__`` lines 131-136 (``pool1d = ...`` at line 132,
``self.pooling_layer = pool1d(...)`` at line 133), ``_Block.forward`` lines 171-202 (the pool called at
line 176) and ``_Stack.forward`` lines 294-316. Written here in our own words: one stack of two blocks (one
max, one average pooling), one linear layer a block, a univariate forecast.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, window: int, horizon: int, kernel: int, use_max: bool, width: int = 16,
                 downsample: int = 2) -> None:
        super().__init__()
        self.window, self.horizon = window, horizon
        choice = nn.MaxPool1d if use_max else nn.AvgPool1d
        self.pool = choice(kernel_size=kernel, stride=kernel, ceil_mode=True)
        pooled = -(-window // kernel)
        self.hidden = nn.Sequential(nn.Linear(pooled, width), nn.ReLU())
        self.back = nn.Linear(width, max(window // downsample, 1))
        self.fore = nn.Linear(width, max(horizon // downsample, 1))

    def forward(self, x: torch.Tensor):
        x = x.unsqueeze(1)
        x = self.pool(x)
        x = x.squeeze(1)
        h = self.hidden(x)
        back = F.interpolate(self.back(h).unsqueeze(1), size=self.window, mode="linear")
        fore = F.interpolate(self.fore(h).unsqueeze(1), size=self.horizon, mode="linear")
        return back.squeeze(1), fore.squeeze(1)


class Stack(nn.Module):
    def __init__(self, window: int = 24, horizon: int = 8) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(window, horizon, 5, True), Block(window, horizon, 3, False)])
        self.horizon = horizon

    def forward(self, series: torch.Tensor) -> torch.Tensor:
        forecast = torch.zeros(series.shape[0], self.horizon, dtype=series.dtype)
        x = series
        for block in self.blocks:
            back, fore = block(x)
            forecast = forecast + fore
            x = x - back
        return torch.cat([forecast, x], dim=1)


def build() -> nn.Module:
    return Stack()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 24, generator=generator),)


DYNAMIC = {"series": {0: "batch"}}
