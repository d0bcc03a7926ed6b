"""Pad to a multiple, upscale by 4, crop back to ``h0 * 4`` when needed, then add the nearest-upscaled input.

Reduced from bilibili/ailab@2799af78ef105b414cc4b796c67c8511acdcdf6f Real-CUGAN/upcunet_v3.py:903-932
(``UpCunet4x.forward``: ``x00 = x``; under ``if(tile_mode==0):`` a reflect pad to an even size, the
U-Nets, a pixel shuffle, the crop written on the guard's own line, ``if (w0 != pw or h0 != ph): x =
x[:, :, :h0 * 4, :w0 * 4]``, then ``x+=F.interpolate(x00, scale_factor=4, mode='nearest')``;
``elif(tile_mode==1):`` picks a tile size in a nested ``if``), as ccrestoration 0.2.2 keeps it
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
                tile = ((h0 - 1) // 2 * 2 + 2, ((w0 - 1) // 4 * 4 + 4) // 2)
            else:
                tile = (((h0 - 1) // 4 * 4 + 4) // 2, (w0 - 1) // 2 * 2 + 2)
        else:
            tile = (h0, w0)
        ph = ((h0 - 1) // tile[0] + 1) * tile[0]
        pw = ((w0 - 1) // tile[1] + 1) * tile[1]
        x = F.pad(x, (1, 1 + pw - w0, 1, 1 + ph - h0), "reflect")
        out = x.new_zeros((n, c, ph * 4, pw * 4))
        for i in range(0, ph, tile[0]):
            for j in range(0, pw, tile[1]):
                part = self.run(x[:, :, i : i + tile[0] + 2, j : j + tile[1] + 2])[:, :, 2:-2, 2:-2]
                out[:, :, i * 4 : (i + tile[0]) * 4, j * 4 : (j + tile[1]) * 4] = part
        return out[:, :, : h0 * 4, : w0 * 4] + F.interpolate(x00, scale_factor=4, mode="nearest")


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
