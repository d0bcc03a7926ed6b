"""Longformer's sliding chunks: a sequence viewed as chunks of ``2w`` rows, then ``as_strided`` with the
chunk count doubled less one and the chunk stride halved, so that the chunks overlap by ``w`` rows.

Reduced from allenai/longformer @ caefee668e39cacdece7dd603a0bebf24df6d8ca,
longformer/sliding_chunks.py:25-37 (``_chunk``: ``x.view(x.size(0), x.size(1) // (w * 2), w * 2,
x.size(2))``, ``chunk_size = list(x.size())``, ``chunk_size[1] = chunk_size[1] * 2 - 1``,
``chunk_stride = list(x.stride())``, ``chunk_stride[1] = chunk_stride[1] // 2``,
``x.as_strided(size=chunk_size, stride=chunk_stride)``), as ``sliding_chunks_matmul_qk`` calls it on
the heads' queries and keys. Written here in our own words with one projection and each chunk's
query-key products as the output. The view keeps the tensor's rank: the windows run over the merged
chunk and row axes of the view.
"""

import torch
from torch import nn


def chunk(x: torch.Tensor, w: int) -> torch.Tensor:
    x = x.view(x.size(0), x.size(1) // (w * 2), w * 2, x.size(2))
    chunk_size = list(x.size())
    chunk_size[1] = chunk_size[1] * 2 - 1
    chunk_stride = list(x.stride())
    chunk_stride[1] = chunk_stride[1] // 2
    return x.as_strided(size=chunk_size, stride=chunk_stride)


class SlidingChunks(nn.Module):
    def __init__(self, dim: int = 4, w: int = 2) -> None:
        super().__init__()
        self.w = w
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        chunk_q = chunk(self.q(hidden), self.w)
        chunk_k = chunk(self.k(hidden), self.w)
        return torch.einsum("bcxd,bcyd->bcxy", chunk_q, chunk_k)


def build() -> nn.Module:
    return SlidingChunks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 12, 4, generator=generator),)


DYNAMIC = {"hidden": {0: "batch", 1: "sequence"}}
