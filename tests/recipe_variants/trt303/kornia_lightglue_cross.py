"""LightGlue's bidirectional cross attention, one product with a transposed first operand: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/lightglue.py, ``CrossBlock.forward``
(lines 295-310, the path without flash attention: ``torch.einsum("bhid, bhjd -> bhij", qk0, qk1)``
on line 303, ``torch.einsum("bhij, bhjd -> bhid", attn01, v1)`` on line 308 and
``torch.einsum("bhji, bhjd -> bhid", attn10.transpose(-2, -1), v0)`` on line 309; a port of
cvg/LightGlue). Written here in our own words: one shared query/key projection and one value
projection per image, masked pairs filled with ``-inf`` before the softmax and the NaN of a fully
masked row zeroed after, as in the original.
"""

import torch
import torch.nn.functional as F
from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qk, self.to_v = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x0, x1, mask):
        qk0, qk1 = self.to_qk(x0), self.to_qk(x1)
        v0, v1 = self.to_v(x0), self.to_v(x1)
        qk0, qk1, v0, v1 = (t.unflatten(-1, (self.heads, -1)).transpose(1, 2) for t in (qk0, qk1, v0, v1))
        qk0, qk1 = qk0 * self.scale**0.5, qk1 * self.scale**0.5
        sim = torch.einsum("bhid, bhjd -> bhij", qk0, qk1)
        sim = sim.masked_fill(~mask, -float("inf"))
        attn01 = F.softmax(sim, dim=-1)
        attn10 = F.softmax(sim.transpose(-2, -1).contiguous(), dim=-1)
        m0 = torch.einsum("bhij, bhjd -> bhid", attn01, v1)
        m1 = torch.einsum("bhji, bhjd -> bhid", attn10.transpose(-2, -1), v0)
        m0, m1 = m0.nan_to_num(), m1.nan_to_num()
        return torch.cat([m0.transpose(1, 2).flatten(-2), m1.transpose(1, 2).flatten(-2)], dim=1)


def build() -> nn.Module:
    return CrossAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x0, x1 = torch.randn(2, 4, 8, generator=generator), torch.randn(2, 5, 8, generator=generator)
    return x0, x1, torch.rand(2, 1, 4, 5, generator=generator) > 0.2


DYNAMIC = {"x0": {0: "batch", 1: "m"}, "x1": {0: "batch", 1: "n"}, "mask": {0: "batch", 2: "m", 3: "n"}}
