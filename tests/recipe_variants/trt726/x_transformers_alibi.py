"""A grow-only ALiBi bias registered as a buffer, the hit returning a slice of it: x-transformers keeps
the bias for the largest (query, key) lengths seen so far and reads the last ``i`` rows and ``j``
columns of it.

Reduced from lucidrains/x-transformers 2.26.4 at 9252ed7838021ee61e6c5be0930b3a9a88efdf06,
x_transformers/x_transformers.py: ``AlibiPositionalBias.forward(i, j)`` returns
``self.bias[..., -i:, -j:]`` when ``exists(self.bias) and self.bias.shape[-1] >= j and
self.bias.shape[-2] >= i`` (:649-650), and otherwise builds ``-|j_pos - i_pos|`` times the heads'
slopes, pads the heads without ALiBi and registers it (``self.register_buffer('bias', bias, persistent =
False)``, :652-661); the attention calls ``rel_pos(i, j)`` with the similarity's lengths (:2472).
Written here in our own words: a single-head-group attention over one input whose similarity gets the
bias, slopes for two of three heads (``einx`` and ``pad_at_dim`` replaced by plain torch).
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def exists(value) -> bool:
    return value is not None


class AlibiBias(nn.Module):
    def __init__(self, heads: int = 2, total_heads: int = 3) -> None:
        super().__init__()
        self.total_heads = total_heads
        start = 2 ** (-2 ** -(math.log2(heads) - 3))
        slopes = torch.tensor([start * start ** k for k in range(heads)])
        self.register_buffer("slopes", slopes[:, None, None], persistent=False)
        self.register_buffer("bias", None, persistent=False)

    @property
    def device(self) -> torch.device:
        return next(self.buffers()).device

    def forward(self, i, j):
        device = self.device
        if exists(self.bias) and self.bias.shape[-1] >= j and self.bias.shape[-2] >= i:
            return self.bias[..., -i:, -j:]
        rows = torch.arange(j - i, j, device=device)
        columns = torch.arange(j, device=device)
        bias = -(columns[None, None, :] - rows[None, :, None]).abs()
        bias = bias * self.slopes
        bias = F.pad(bias, (0, 0, 0, 0, 0, self.total_heads - bias.shape[-3]))
        self.register_buffer("bias", bias, persistent=False)
        return self.bias


class Attention(nn.Module):
    def __init__(self, dim: int = 6, heads: int = 3) -> None:
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.rel_pos = AlibiBias(total_heads=heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, dim = x.shape
        q, k, v = self.to_qkv(x).reshape(b, n, 3, self.heads, dim // self.heads).permute(2, 0, 3, 1, 4)
        sim = q @ k.transpose(-1, -2)
        i, j = sim.shape[-2:]
        sim = sim + self.rel_pos(i, j)
        out = sim.softmax(dim=-1) @ v
        return out.transpose(1, 2).reshape(b, n, dim)


def build() -> nn.Module:
    return Attention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 6, generator=generator),)


DYNAMIC = {"x": {1: "seq"}}
