"""LightGlue's cross-attention block: both directions of the attention between two keypoint sets
share one similarity matrix, padded keypoints are masked out with ``-inf`` before the softmax, and
a row with no valid key (a padded keypoint) comes out of the softmax as NaN, which the block clears
with ``m0, m1 = m0.nan_to_num(), m1.nan_to_num()`` (tensor methods, default arguments).

Reduced from cvg/LightGlue at commit 1fd587b6f5a7a0befd31188f1e5d2f05740006d7,
lightglue/lightglue.py, ``CrossBlock.forward`` lines 201-230 (the shared ``to_qk``/``to_v``
projections, ``sim.masked_fill(~mask, -float("inf"))``, the two softmaxes, the two einsums and
the ``nan_to_num`` of both messages at line 225) and ``TransformerLayer.masked_forward`` lines
256-262 (the cross mask from the two keypoint masks). Written here in our own words: one block,
two heads, a small descriptor size, no flash path; the keypoint masks are inputs.
"""

import torch
import torch.nn.functional as F
from torch import nn


class CrossBlock(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qk = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.to_out = nn.Linear(dim, dim)
        self.ffn = nn.Sequential(nn.Linear(2 * dim, 2 * dim), nn.LayerNorm(2 * dim), nn.GELU(),
                                 nn.Linear(2 * dim, dim))

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        return t.unflatten(-1, (self.heads, -1)).transpose(1, 2)

    def forward(self, desc0: torch.Tensor, desc1: torch.Tensor, valid0: torch.Tensor,
                valid1: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mask = (valid0[:, :, None] & valid1[:, None, :])[:, None]
        qk0, qk1 = self._split(self.to_qk(desc0)), self._split(self.to_qk(desc1))
        v0, v1 = self._split(self.to_v(desc0)), self._split(self.to_v(desc1))
        qk0, qk1 = qk0 * self.scale ** 0.5, qk1 * self.scale ** 0.5
        sim = torch.einsum("bhid,bhjd->bhij", qk0, qk1)
        if mask is not None:
            sim = sim.masked_fill(~mask, -float("inf"))
        attn01 = F.softmax(sim, dim=-1)
        attn10 = F.softmax(sim.transpose(-2, -1).contiguous(), dim=-1)
        m0 = torch.einsum("bhij,bhjd->bhid", attn01, v1)
        m1 = torch.einsum("bhji,bhjd->bhid", attn10.transpose(-2, -1), v0)
        if mask is not None:
            m0, m1 = m0.nan_to_num(), m1.nan_to_num()
        m0 = self.to_out(m0.transpose(1, 2).flatten(start_dim=-2))
        m1 = self.to_out(m1.transpose(1, 2).flatten(start_dim=-2))
        return desc0 + self.ffn(torch.cat([desc0, m0], -1)), desc1 + self.ffn(torch.cat([desc1, m1], -1))


def build() -> nn.Module:
    return CrossBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    desc0 = torch.randn(2, 5, 8, generator=generator)
    desc1 = torch.randn(2, 6, 8, generator=generator)
    valid0 = torch.tensor([[True] * 5, [True, True, True, False, False]])
    valid1 = torch.tensor([[True] * 6, [True, True, False, False, False, False]])
    return desc0, desc1, valid0, valid1


DYNAMIC = {"desc0": {0: "batch", 1: "n0"}, "desc1": {0: "batch", 1: "n1"},
           "valid0": {0: "batch", 1: "n0"}, "valid1": {0: "batch", 1: "n1"}}
