"""Pad to a multiple, upscale by 3, crop back to ``h0 * 3`` only when the pad added rows: Real-CUGAN x3.

Reduced from ccrestoration 0.2.2 (the PyPI wheel), ccrestoration/arch/upcunet_arch.py:737-757
(``UpCunet3x.forward``: ``if tile_mode == 0:`` pads to a multiple of 4 with a reflect pad, runs the
two U-Nets, then ``if w0 != pw or h0 != ph: x = x[:, :, : h0 * 3, : w0 * 3]``; ``elif tile_mode == 1:``
picks a tile size in a nested ``if``, and the tiled path after the chain loops over the tiles), itself
from bilibili/ailab@2799af78ef105b414cc4b796c67c8511acdcdf6f Real-CUGAN/upcunet_v3.py:578-600. The caller
passes ``tile_mode=0`` as a Python int (upcunet_arch.py:78). Written in our own words, a convolution
and a pixel shuffle standing in for the U-Nets.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Upscale3x(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Conv2d(3, 27, 3, padding=1)
        self.shuffle = nn.PixelShuffle(3)

    def run(self, x):
        return self.shuffle(self.body(x))[:, :, 6:-6, 6:-6]

    def forward(self, x, tile_mode, pro):
        n, c, h0, w0 = x.shape
        if tile_mode == 0:
            ph = ((h0 - 1) // 4 + 1) * 4
            pw = ((w0 - 1) // 4 + 1) * 4
            x = F.pad(x, (2, 2 + pw - w0, 2, 2 + ph - h0), "reflect")
            x = self.run(x)
            if w0 != pw or h0 != ph:
                x = x[:, :, : h0 * 3, : w0 * 3]
            if pro:
                return (x - 0.15) / 0.7
            else:
                return x
        elif tile_mode == 1:
            if w0 >= h0:
                tile = ((h0 - 1) // 4 * 4 + 4, ((w0 - 1) // 8 * 8 + 8) // 2)
            else:
                tile = (((h0 - 1) // 8 * 8 + 8) // 2, (w0 - 1) // 4 * 4 + 4)
        else:
            tile = (h0, w0)
        ph = ((h0 - 1) // tile[0] + 1) * tile[0]
        pw = ((w0 - 1) // tile[1] + 1) * tile[1]
        x = F.pad(x, (2, 2 + pw - w0, 2, 2 + ph - h0), "reflect")
        out = x.new_zeros((n, c, ph * 3, pw * 3))
        for i in range(0, ph, tile[0]):
            for j in range(0, pw, tile[1]):
                part = self.run(x[:, :, i : i + tile[0] + 4, j : j + tile[1] + 4])
                out[:, :, i * 3 : (i + tile[0]) * 3, j * 3 : (j + tile[1]) * 3] = part
        return out[:, :, : h0 * 3, : w0 * 3]


class RealCugan3x(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = Upscale3x()
        self.pro = True

    def forward(self, x):
        if self.pro:
            x = x * 0.7 + 0.15
        return self.net(x, tile_mode=0, pro=self.pro)


def build() -> nn.Module:
    return RealCugan3x()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 8, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
