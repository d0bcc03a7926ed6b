"""A small BEV decoder: an FPN-style neck over a bird's-eye-view feature map.

It demonstrates the padding and adaptive-pooling constructs trtcodemod rewrites
(TRT501 zero-pad-cat, TRT601 adaptive-avg-pool), in the places real BEV and detection
code puts them:

- ``F.pad`` to make odd BEV grids even before a stride-2 convolution, and an
  ``nn.ZeroPad2d`` inside an ``nn.Sequential`` built in ``__init__``;
- squeeze-excitation context with ``F.adaptive_avg_pool2d(x, 1)``;
- pyramid pooling (PSP) with ``nn.AdaptiveAvgPool2d(s)`` for s = 1, 2, 3, 6 — sizes
  that do not divide a 50x50 grid, so the stock exporter refuses them, and with
  dynamic H/W it refuses all of them;
- a row pooling module ``nn.AdaptiveAvgPool2d((8, None))`` built in ``__init__`` and
  called in ``forward``, and a scene head ``nn.Sequential(..., nn.AdaptiveAvgPool2d((1, 1)),
  nn.Flatten(), ...)`` whose parameter names must not shift.

Run ``trtcodemod apply --dry-run examples/bev_decoder.py`` to see the rewrites.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduction: int = 4) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(channels, channels // reduction, 1)
        self.fc2 = nn.Conv2d(channels // reduction, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        context = F.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.fc2(F.relu(self.fc1(context))))


class PyramidPooling(nn.Module):
    def __init__(self, channels: int, sizes=(1, 2, 3, 6)) -> None:
        super().__init__()
        self.stages = nn.ModuleList(
            nn.Sequential(nn.AdaptiveAvgPool2d(size), nn.Conv2d(channels, channels // 4, 1), nn.ReLU())
            for size in sizes
        )
        self.fuse = nn.Conv2d(channels * 2, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        height, width = x.shape[-2:]
        pooled = [F.interpolate(stage(x), size=(height, width), mode="nearest") for stage in self.stages]
        return self.fuse(torch.cat([x, *pooled], dim=1))


class BEVDecoder(nn.Module):
    def __init__(self, in_channels: int = 32, channels: int = 32, num_classes: int = 4) -> None:
        super().__init__()
        self.stem = nn.Conv2d(in_channels, channels, 3, padding=1)
        self.down = nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Conv2d(channels, channels, 2, stride=2))
        self.down2 = nn.Conv2d(channels, channels, 2, stride=2)
        self.se = SqueezeExcite(channels)
        self.ppm = PyramidPooling(channels)
        self.rows = nn.AdaptiveAvgPool2d((8, None))
        self.row_head = nn.Conv2d(channels, 2, 1)
        self.scene = nn.Sequential(
            nn.Conv2d(channels, channels, 1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((1, 1)),
            nn.Flatten(),
            nn.Linear(channels, num_classes),
        )

    def forward(self, bev: torch.Tensor):
        x = self.se(F.relu(self.stem(bev)))
        x = self.down(x)                                 # odd grids padded by ZeroPad2d
        x = self.down2(F.pad(x, (0, 1, 0, 1)))           # and by F.pad
        x = self.ppm(x)
        return self.scene(x), self.row_head(self.rows(x))


def build() -> nn.Module:
    return BEVDecoder().eval()


def inputs(generator: torch.Generator) -> tuple:
    return (torch.randn(2, 32, 50, 50, generator=generator),)
