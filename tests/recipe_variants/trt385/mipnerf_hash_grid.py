"""A mip-NeRF repository's hash-grid encoder: eight corners per level hashed by XOR of coordinates times primes.

Reduced from DevCielo/NeRF_Gaussian @ 9cb7cbefd08a60c33571586b3618da55c87cb34c, mip_nerf/hashencoding.py: the
module-level ``_hash(coords, size_mask)`` returns ``((coords[:, 0] * _PRIMES[0]) ^ (coords[:, 1] * _PRIMES[1]) ^
(coords[:, 2] * _PRIMES[2])) & size_mask`` (line 8); ``HashGridEncoder.forward`` floors the scaled points per level
(``idx0 = pos.floor().int()``), stacks each corner (``offs = torch.stack(...)``), hashes it, reads the level's
``nn.Embedding`` and sums the corners weighted trilinearly. Kept: the hash, the corners, the embeddings and the
weights. Reduced: 3 levels of 2**10 entries. Written here in our own words.
"""

import math

import torch
import torch.nn as nn

DYNAMIC = {"x": {0: "points"}}
#: The line of the hash (the rule's finding).
CALL = "return ((coords[:, 0] * _PRIMES[0]) ^ (coords[:, 1] * _PRIMES[1]) ^ (coords[:, 2] * _PRIMES[2])) & size_mask"

_PRIMES = (1_000_003, 1_000_033, 1_000_087)


def _hash(coords, size_mask):
    return ((coords[:, 0] * _PRIMES[0]) ^ (coords[:, 1] * _PRIMES[1]) ^ (coords[:, 2] * _PRIMES[2])) & size_mask


class HashGridEncoder(nn.Module):
    def __init__(self, num_levels=3, features_per_level=2, log2_hashmap_size=10, base_resolution=16,
                 per_level_scale=1.5):
        super().__init__()
        self.num_levels = num_levels
        self.base_resolution = base_resolution
        self.per_level_scale = per_level_scale
        self.size_mask = (1 << log2_hashmap_size) - 1
        self.tables = nn.ModuleList([nn.Embedding(1 << log2_hashmap_size, features_per_level)
                                     for _ in range(num_levels)])
        for table in self.tables:
            nn.init.uniform_(table.weight, -0.1, 0.1)

    def forward(self, x):
        x = x.clamp(0, 1)
        outputs = []
        for lvl in range(self.num_levels):
            res_i = int(math.floor(self.base_resolution * (self.per_level_scale ** lvl)))
            pos = x * res_i
            idx0 = pos.floor().int()
            frac = pos - idx0.float()
            feats = 0
            for xi in (0, 1):
                for yi in (0, 1):
                    for zi in (0, 1):
                        offs = torch.stack((idx0[:, 0] + xi, idx0[:, 1] + yi, idx0[:, 2] + zi), -1)
                        h = _hash(offs, self.size_mask)
                        w = (((1 - xi) + (-1 + 2 * xi) * frac[:, 0]) * ((1 - yi) + (-1 + 2 * yi) * frac[:, 1])
                             * ((1 - zi) + (-1 + 2 * zi) * frac[:, 2]))
                        feats = feats + w.unsqueeze(-1) * self.tables[lvl](h)
            outputs.append(feats)
        return torch.cat(outputs, -1)


def build() -> nn.Module:
    return HashGridEncoder().eval()


def inputs(generator: torch.Generator, points: int = 9) -> tuple[torch.Tensor, ...]:
    """Points in the unit cube."""
    return (torch.rand(points, 3, generator=generator),)
