"""nerfstudio's torch hash encoding: voxel corners hashed by XOR of coordinates times primes.

Reduced from nerfstudio-project/nerfstudio @ 059931f9b84db8bd290ffea92b47e7cf8727c580,
nerfstudio/field_components/encodings.py: ``HashEncoding.hash_fn`` (lines 414-415 in nerfstudio 1.1.5) multiplies the
integer corners by ``torch.tensor([1, 2654435761, 805459861])`` and hashes them as
``torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])``, then with the third coordinate, modulo the table size,
offset per level; ``pytorch_fwd`` (the torch path used without tiny-cuda-nn) scales the points per level, hashes the
eight corners of each cell (ceil and floor per axis), reads the table and interpolates trilinearly. Kept: the hash,
the eight corners, the table lookups and the interpolation. Reduced: 4 levels, a table of 2**10 entries per level,
no tcnn branch. Written here in our own words.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"in_tensor": {0: "points"}}
#: The line of the first hash (the rule's finding).
CALL = "x = torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])"


class HashEncoding(nn.Module):
    def __init__(self, num_levels=4, min_res=16, max_res=256, log2_hashmap_size=10, features_per_level=2):
        super().__init__()
        self.num_levels = num_levels
        self.features_per_level = features_per_level
        self.hash_table_size = 2**log2_hashmap_size
        levels = torch.arange(num_levels)
        growth = np.exp((np.log(max_res) - np.log(min_res)) / (num_levels - 1))
        self.register_buffer("scalings", torch.floor(min_res * growth**levels))
        self.register_buffer("hash_offset", levels * self.hash_table_size)
        table = (torch.rand(self.hash_table_size * num_levels, features_per_level) * 2 - 1) * 0.1
        self.hash_table = nn.Parameter(table)

    def hash_fn(self, in_tensor: torch.Tensor) -> torch.Tensor:
        in_tensor = in_tensor * torch.tensor([1, 2654435761, 805459861]).to(in_tensor.device)
        x = torch.bitwise_xor(in_tensor[..., 0], in_tensor[..., 1])
        x = torch.bitwise_xor(x, in_tensor[..., 2])
        x %= self.hash_table_size
        x += self.hash_offset.to(x.device)
        return x

    def forward(self, in_tensor):
        in_tensor = in_tensor[..., None, :]
        scaled = in_tensor * self.scalings.view(-1, 1)
        c = torch.ceil(scaled).type(torch.int32)
        f = torch.floor(scaled).type(torch.int32)
        offset = scaled - f
        corners = [c, torch.cat([c[..., 0:1], f[..., 1:2], c[..., 2:3]], dim=-1),
                   torch.cat([f[..., 0:1], f[..., 1:2], c[..., 2:3]], dim=-1),
                   torch.cat([f[..., 0:1], c[..., 1:2], c[..., 2:3]], dim=-1),
                   torch.cat([c[..., 0:1], c[..., 1:2], f[..., 2:3]], dim=-1),
                   torch.cat([c[..., 0:1], f[..., 1:2], f[..., 2:3]], dim=-1), f,
                   torch.cat([f[..., 0:1], c[..., 1:2], f[..., 2:3]], dim=-1)]
        f0, f1, f2, f3, f4, f5, f6, f7 = [self.hash_table[self.hash_fn(corner)] for corner in corners]
        u, v, w = offset[..., 0:1], offset[..., 1:2], offset[..., 2:3]
        f03, f12 = f0 * u + f3 * (1 - u), f1 * u + f2 * (1 - u)
        f56, f47 = f5 * u + f6 * (1 - u), f4 * u + f7 * (1 - u)
        value = (f03 * v + f12 * (1 - v)) * w + (f47 * v + f56 * (1 - v)) * (1 - w)
        return torch.flatten(value, start_dim=-2, end_dim=-1)


def build() -> nn.Module:
    return HashEncoding().eval()


def inputs(generator: torch.Generator, points: int = 9) -> tuple[torch.Tensor, ...]:
    """Points in the unit cube."""
    return (torch.rand(points, 3, generator=generator),)
