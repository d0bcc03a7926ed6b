"""O-CNN's shuffled-key decoding: octree keys back to cell coordinates and batch index through lookup tables.

Reduced from octree-nn/ocnn-pytorch @ 0f110d45dd18ccf989aa013230a59d435fca113b, ocnn/octree/shuffled_key.py:
``key2xyz`` reads the batch index above bit 48 (``b = key >> 48``), keeps the 48 key bits
(``key = key & ((1 << 48) - 1)``, line 90) and, nine bits at a time, adds each coordinate's three bits from a
512-entry table: ``x = x | (DX[k] << (i * 3))`` from ``torch.zeros_like(key)`` (line 95). The tables come from
``KeyLUT.key2xyz``'s bit loop, run once. Kept: the tables, the batch split, the mask and the loop of table reads.
Reduced: decoding only, the tables held by the module. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"key": {0: "cells"}}
#: The line of the 48-bit mask (the rule's finding).
CALL = "key = key & ((1 << 48) - 1)"


def lut_key2xyz(key, depth):
    x = torch.zeros_like(key)
    y = torch.zeros_like(key)
    z = torch.zeros_like(key)
    for i in range(depth):
        x = x | ((key & (1 << (3 * i + 2))) >> (2 * i + 2))
        y = y | ((key & (1 << (3 * i + 1))) >> (2 * i + 1))
        z = z | ((key & (1 << (3 * i + 0))) >> (2 * i + 0))
    return x, y, z


_DECODE = lut_key2xyz(torch.arange(512, dtype=torch.int64), 9)


def key2xyz(key: torch.Tensor, depth: int = 16):
    DX, DY, DZ = _DECODE
    x, y, z = torch.zeros_like(key), torch.zeros_like(key), torch.zeros_like(key)
    b = key >> 48
    key = key & ((1 << 48) - 1)
    n = (depth + 2) // 3
    for i in range(n):
        k = key >> (i * 9) & 511
        x = x | (DX[k] << (i * 3))
        y = y | (DY[k] << (i * 3))
        z = z | (DZ[k] << (i * 3))
    return x, y, z, b


class DecodeKeys(nn.Module):
    def forward(self, key):
        x, y, z, b = key2xyz(key)
        return torch.stack([x, y, z, b], dim=-1)


def build() -> nn.Module:
    return DecodeKeys().eval()


def inputs(generator: torch.Generator, cells: int = 12) -> tuple[torch.Tensor, ...]:
    """Keys of 48 bits with a batch index of up to 15 above them."""
    low = torch.randint(0, 2**48, (cells,), generator=generator)
    return (low + (torch.randint(0, 16, (cells,), generator=generator) << 48),)
