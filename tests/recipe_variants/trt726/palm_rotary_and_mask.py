"""Two grow-only caches registered as buffers in helper methods, each hit returning a slice: PaLM-pytorch's
parallel transformer block keeps its causal mask and its rotary table for the longest sequence seen.

Reduced from lucidrains/PaLM-pytorch 0.2.2 at 7164d13d5a831647edb5838544017f387130f987,
palm_pytorch/palm_pytorch.py: ``ParallelTransformerBlock.get_mask`` returns ``self.mask[:n, :n]`` when
``self.mask is not None and self.mask.shape[-1] >= n`` (:97-103) and ``get_rotary_embedding`` returns
``self.pos_emb[:n]`` when ``self.pos_emb is not None and self.pos_emb.shape[-2] >= n`` (:105-111), each
otherwise building the value for ``n`` and registering it (``self.register_buffer("mask", mask,
persistent=False)``); ``forward`` calls both with ``n = x.shape[1]`` (:141, :154). Written here in our own
words: one query head and a shared key and value (the original's multi-query attention) without the
feed-forward half, ``rearrange``/``einsum`` as plain torch.
"""

import torch
from torch import nn


class Rotary(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    def forward(self, n: int, device=None) -> torch.Tensor:
        positions = torch.arange(n, device=device, dtype=self.inv_freq.dtype)
        freqs = positions[:, None] * self.inv_freq[None, :]
        return torch.cat((freqs, freqs), dim=-1)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Block(nn.Module):
    def __init__(self, dim: int = 6, dim_head: int = 4) -> None:
        super().__init__()
        self.fused_dims = (dim_head, dim_head, dim_head)
        self.scale = dim_head ** -0.5
        self.rotary_emb = Rotary(dim_head)
        self.proj = nn.Linear(dim, sum(self.fused_dims), bias=False)
        self.out = nn.Linear(dim_head, dim, bias=False)
        self.register_buffer("mask", None, persistent=False)
        self.register_buffer("pos_emb", None, persistent=False)

    def get_mask(self, n, device):
        if self.mask is not None and self.mask.shape[-1] >= n:
            return self.mask[:n, :n]
        mask = torch.ones((n, n), device=device, dtype=torch.bool).triu(1)
        self.register_buffer("mask", mask, persistent=False)
        return mask

    def get_rotary_embedding(self, n, device):
        if self.pos_emb is not None and self.pos_emb.shape[-2] >= n:
            return self.pos_emb[:n]
        pos_emb = self.rotary_emb(n, device=device)
        self.register_buffer("pos_emb", pos_emb, persistent=False)
        return pos_emb

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, device = x.shape[1], x.device
        q, k, v = self.proj(x).split(self.fused_dims, dim=-1)
        positions = self.get_rotary_embedding(n, device)
        q, k = (t * positions.cos() + rotate_half(t) * positions.sin() for t in (q, k))
        sim = (q * self.scale) @ k.transpose(-1, -2)
        sim = sim.masked_fill(self.get_mask(n, device), -torch.finfo(sim.dtype).max)
        return self.out(sim.softmax(dim=-1) @ v)


def build() -> nn.Module:
    return Block()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 6, generator=generator),)


DYNAMIC = {"x": {1: "seq"}}
