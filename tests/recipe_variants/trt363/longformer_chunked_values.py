"""Longformer's value chunks: the values padded by ``w`` rows at both ends and viewed as chunks of
``3w`` rows every ``w`` rows, the window axis inside (before the features), by hand-built strides.

Reduced from allenai/longformer @ caefee668e39cacdece7dd603a0bebf24df6d8ca,
longformer/sliding_chunks.py:89-113 (``sliding_chunks_matmul_pv``: ``chunks_count = seqlen // w - 1``,
``padded_v = F.pad(v, (0, 0, w, w), value=-1)``, ``chunk_v_size = (bsz * num_heads, chunks_count + 1,
3 * w, head_dim)``, ``chunk_v_stride = chunk_v_stride[0], w * chunk_v_stride[1], chunk_v_stride[1],
chunk_v_stride[2]``, ``padded_v.as_strided(size=chunk_v_size, stride=chunk_v_stride)``). Written here in
our own words with one head and a sum over each chunk's rows as the output. The first stride is the
padded length, which the TorchScript export takes as the example's number.
"""

import torch
import torch.nn.functional as F
from torch import nn


def value_chunks(v: torch.Tensor, w: int) -> torch.Tensor:
    bsz, seqlen, head_dim = v.size()
    chunks_count = seqlen // w - 1
    padded_v = F.pad(v, (0, 0, w, w), value=-1)
    chunk_v_size = (bsz, chunks_count + 1, 3 * w, head_dim)
    chunk_v_stride = padded_v.stride()
    chunk_v_stride = chunk_v_stride[0], w * chunk_v_stride[1], chunk_v_stride[1], chunk_v_stride[2]
    return padded_v.as_strided(size=chunk_v_size, stride=chunk_v_stride)


class ChunkedValues(nn.Module):
    def __init__(self, dim: int = 4, w: int = 2) -> None:
        super().__init__()
        self.w = w
        self.v = nn.Linear(dim, dim)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        chunk_v = value_chunks(self.v(hidden), self.w)
        return chunk_v.sum(2)


def build() -> nn.Module:
    return ChunkedValues()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 12, 4, generator=generator),)


DYNAMIC = {"hidden": {0: "batch", 1: "sequence"}}
