"""Point Transformer V3's z-order serialization: the shuffled (Morton) key of each grid cell and its batch.

Reduced from Pointcept/PointTransformerV3 @ 37a3ddc031de127240ed558a450f6e684647ebe1, serialization/z_order.py and
serialization/default.py: ``xyz2key`` reads three 256-entry lookup tables built once by ``KeyLUT`` (the bits of
each byte spread three apart) as ``EX[x & mask] | EY[y & mask] | EZ[z & mask]`` (z_order.py line 87), the high byte
of each coordinate the same way shifted left by 24 (``key16 << 24 | key``), and ``encode`` puts the batch index above
the key: ``code = batch << depth * 3 | code`` (default.py line 21). The model's ``serialization`` then sorts the points
by that code. Kept: the lookup tables, both bytes, the batch and the sort. Reduced: z order only (no Hilbert or
transposed orders), no decoding, no ``inference_mode``. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"grid_coord": {0: "points"}, "batch": {0: "points"}}
#: The line of the low byte's key (the rule's finding).
CALL = "key = EX[x & mask] | EY[y & mask] | EZ[z & mask]"


class KeyLUT:
    def __init__(self):
        r256 = torch.arange(256, dtype=torch.int64)
        zero = torch.zeros(256, dtype=torch.int64)
        self.encode = (self.spread(r256, zero, zero), self.spread(zero, r256, zero), self.spread(zero, zero, r256))

    def spread(self, x, y, z, depth=8):
        key = torch.zeros_like(x)
        for i in range(depth):
            mask = 1 << i
            key = key | ((x & mask) << (2 * i + 2)) | ((y & mask) << (2 * i + 1)) | ((z & mask) << (2 * i + 0))
        return key


_key_lut = KeyLUT()


def xyz2key(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor, depth: int = 16):
    EX, EY, EZ = _key_lut.encode
    x, y, z = x.long(), y.long(), z.long()
    mask = 255 if depth > 8 else (1 << depth) - 1
    key = EX[x & mask] | EY[y & mask] | EZ[z & mask]
    if depth > 8:
        mask = (1 << (depth - 8)) - 1
        key16 = EX[(x >> 8) & mask] | EY[(y >> 8) & mask] | EZ[(z >> 8) & mask]
        key = key16 << 24 | key
    return key


def encode(grid_coord: torch.Tensor, batch: torch.Tensor, depth: int = 16):
    x, y, z = grid_coord[:, 0].long(), grid_coord[:, 1].long(), grid_coord[:, 2].long()
    code = xyz2key(x, y, z, depth=depth)
    batch = batch.long()
    code = batch << depth * 3 | code
    return code


class Serialization(nn.Module):
    def forward(self, grid_coord, batch):
        code = encode(grid_coord, batch)
        order = torch.argsort(code)
        return code, order


def build() -> nn.Module:
    return Serialization().eval()


def inputs(generator: torch.Generator, points: int = 12) -> tuple[torch.Tensor, ...]:
    """Grid cells of up to 16 bits per axis, in two batches (distinct codes, so the sort is unique)."""
    cells = torch.randperm(2**16, generator=generator)[: 3 * points].view(points, 3)
    return cells, torch.randint(0, 2, (points,), generator=generator)
