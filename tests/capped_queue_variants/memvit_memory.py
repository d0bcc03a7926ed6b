"""Attention over the keys and values of the last clips: MeMViT's online memory.

Reduced from facebookresearch/MeMViT @ 20a24f05ca756a254d52c71011990ff419d399e6,
memvit/models/attention.py:675-727 (``self.cached_k.append(k.detach())``, the memory joined with
this clip's keys by ``torch.cat(k, dim=1)`` for the attention, and ``if len(self.cached_k) ==
self.keep_max_len:`` dropping the oldest with ``self.cached_k[1:]``), written here in our own words
without the memory compression and the per-video masking; the original trims keys and values in
one tuple assignment, here in one ``if`` each.
"""

import torch
from torch import nn


class MemoryAttention(nn.Module):
    def __init__(self, dims: int = 8, keep_max_len: int = 3) -> None:
        super().__init__()
        self.q = nn.Linear(dims, dims)
        self.k = nn.Linear(dims, dims)
        self.v = nn.Linear(dims, dims)
        self.scale = dims ** -0.5
        self.keep_max_len = keep_max_len
        self.cached_k = []
        self.cached_v = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.q(x), self.k(x), self.v(x)
        self.cached_k.append(k.detach())
        self.cached_v.append(v.detach())
        keys = torch.cat(self.cached_k, dim=1)
        values = torch.cat(self.cached_v, dim=1)
        attn = (q @ keys.transpose(-2, -1) * self.scale).softmax(dim=-1)
        out = attn @ values
        # keep at most keep_max_len - 1 clips of memory
        if len(self.cached_k) == self.keep_max_len:
            self.cached_k = self.cached_k[1:]
        if len(self.cached_v) == self.keep_max_len:
            self.cached_v = self.cached_v[1:]
        return out


def build() -> nn.Module:
    return MemoryAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 8, generator=generator),)
