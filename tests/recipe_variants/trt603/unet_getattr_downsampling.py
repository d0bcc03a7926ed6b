"""fepegar/unet's encoder (the ``unet`` package's ``UNet1D``): each encoding block but the last
downsamples with a pooling module that a module-level factory names at run time,
``getattr(nn, "{}Pool{}d".format(pooling_type.capitalize(), dimensions))``, and builds with the
kernel alone; ``forward`` keeps the skip connection and calls ``self.downsample(x)``.

Reduced from fepegar/unet at commit d5f46e0b1e65994ee01107af9094279962409659, unet/encoding.py:
``get_downsampling_layer`` lines 162-169 (the class from ``getattr(nn, class_name)``, built as
``class_(kernel_size)``), ``EncodingBlock.__init__`` lines 137-139 (``self.downsample`` is None or
the factory's module) and ``EncodingBlock.forward`` lines 150-155 (``x = self.downsample(x)`` at
line 154). Written here in our own words, one convolution per block; the first block pools with
"max", the second with "avg" (the package takes either), the last block does not pool.
"""

import torch
from torch import nn


def make_pool(dims: int, kind: str, kernel_size: int = 2) -> nn.Module:
    name = "{}Pool{}d".format(kind.capitalize(), dims)
    pool_class = getattr(nn, name)
    return pool_class(kernel_size)


class Block(nn.Module):
    def __init__(self, dims: int, c_in: int, c_out: int, kind: str | None) -> None:
        super().__init__()
        conv = getattr(nn, f"Conv{dims}d")
        self.conv = conv(c_in, c_out, 3, padding=1)
        self.act = nn.ReLU()
        self.downsample = None
        if kind is not None:
            self.downsample = make_pool(dims, kind)

    def forward(self, x: torch.Tensor):
        x = self.act(self.conv(x))
        if self.downsample is None:
            return x, x
        skip = x
        x = self.downsample(x)
        return x, skip


class Encoder1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block(1, 2, 4, "max"), Block(1, 4, 8, "avg"), Block(1, 8, 8, None)])

    def forward(self, signal: torch.Tensor) -> torch.Tensor:
        skips = []
        x = signal
        for block in self.blocks:
            x, skip = block(x)
            skips.append(skip.mean(-1))
        return torch.cat([x.mean(-1), *skips], dim=1)


def build() -> nn.Module:
    return Encoder1d()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 24, generator=generator),)


DYNAMIC = {"signal": {0: "batch", 2: "length"}}
