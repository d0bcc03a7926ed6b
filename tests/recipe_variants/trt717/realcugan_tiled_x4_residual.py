"""Pad to a multiple, upscale by 4, crop back to ``h0 * 4`` when needed, then add the nearest-upscaled input.

Reduced from bilibili/ailab@2799af78ef105b414cc4b796c67c8511acdcdf6f Real-CUGAN/upcunet_v3.py:903-932
(``UpCunet4x.forward``: ``x00 = x``; under ``if(tile_mode==0):`` a reflect pad to an even size, the
U-Nets, a pixel shuffle, the crop written on the guard's own line, ``if (w0 != pw or h0 != ph): x =
x[:, :, :h0 * 4, :w0 * 4]``, then ``x+=F.interpolate(x00, scale_factor=4, mode='nearest')``;
``elif(tile_mode==1):`` picks a tile size in a nested ``if``; here the tiles are strips of rows), as ccrestoration 0.2.2 keeps it
(ccrestoration/arch/upcunet_arch.py:1128-1147, the crop on its own line). A trace at an even size keeps
no crop, and the graph's residual add fails at an odd one. Written in our own words, a convolution
standing in for the U-Nets.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Upscale4x(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Conv2d(3, 12, 3)
        self.shuffle = nn.PixelShuffle(2)

    def run(self, x):
        return self.shuffle(self.body(F.interpolate(x, scale_factor=2.0, mode="nearest")))

    def forward(self, x, tile_mode):
        n, c, h0, w0 = x.shape
        x00 = x
        if tile_mode == 0:
            ph = ((h0 - 1) // 2 + 1) * 2
            pw = ((w0 - 1) // 2 + 1) * 2
            x = F.pad(x, (1, 1 + pw - w0, 1, 1 + ph - h0), "reflect")
            x = self.run(x)[:, :, 2:-2, 2:-2]
            if (w0 != pw or h0 != ph): x = x[:, :, :h0 * 4, :w0 * 4]
            x += F.interpolate(x00, scale_factor=4, mode="nearest")
            return x
        elif tile_mode == 1:
            if w0 >= h0:
                rows = h0
            else:
                rows = ((h0 - 1) // 4 * 4 + 4) // 2
        else:
            rows = h0
        ph = ((h0 - 1) // rows + 1) * rows
        pw = ((w0 - 1) // 2 + 1) * 2
        x = F.pad(x, (1, 1 + pw - w0, 1, 1 + ph - h0), "reflect")
        strips = [self.run(x[:, :, i : i + rows + 2])[:, :, 2:-2, 2:-2] for i in range(0, ph, rows)]
        return torch.cat(strips, dim=2)[:, :, : h0 * 4, : w0 * 4] + F.interpolate(x00, scale_factor=4, mode="nearest")


class RealCugan4x(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = Upscale4x()

    def forward(self, x):
        return self.net(x, tile_mode=0)


def build() -> nn.Module:
    return RealCugan4x()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 8, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
