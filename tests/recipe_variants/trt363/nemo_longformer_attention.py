"""NeMo's Longformer attention for Conformer encoders: the heads' queries and keys, ``(batch, head, time,
size)``, grouped into ``(batch x head, time, size)`` and cut into overlapping chunks by the attention
module's own ``_chunk_overlap`` method.

Reduced from NVIDIA/NeMo @ 8cfedd7203462cb251a914e700e5605444277561,
nemo/collections/asr/parts/submodules/multi_head_attention.py:831-851
(``RelPositionMultiHeadAttentionLongformer._chunk_overlap``: ``x.view(x.size(0), x.size(1) // (w * 2), w * 2,
x.size(2))``, the chunk count doubled less one, the chunk stride halved, ``x.as_strided(size=chunk_size,
stride=chunk_stride)``) and :890-915 (``sliding_chunks_matmul_qk``: ``q.reshape(bsz * num_heads, seqlen,
head_dim)``, ``self._chunk_overlap(q, w)``, the chunks' products). Written here in our own words with two
heads and the chunks' query-key products as the output.
"""

import torch
from torch import nn


class LongformerAttention(nn.Module):
    def __init__(self, n_feat: int = 4, n_head: int = 2, w: int = 2) -> None:
        super().__init__()
        self.h, self.d_k, self.w = n_head, n_feat // n_head, w
        self.linear_q = nn.Linear(n_feat, n_feat)
        self.linear_k = nn.Linear(n_feat, n_feat)

    def _chunk_overlap(self, x: torch.Tensor, w: int) -> torch.Tensor:
        # (batch x head, time, size) as chunks of 2w rows, then twice as many chunks less one, w rows apart
        x = x.view(x.size(0), x.size(1) // (w * 2), w * 2, x.size(2))
        overlapping = list(x.size())
        overlapping[1] = 2 * overlapping[1] - 1
        steps = list(x.stride())
        steps[1] = steps[1] // 2
        return x.as_strided(size=overlapping, stride=steps)

    def sliding_chunks_matmul_qk(self, q: torch.Tensor, k: torch.Tensor, w: int) -> torch.Tensor:
        bsz, num_heads, seqlen, head_dim = q.size()
        q = q.reshape(bsz * num_heads, seqlen, head_dim)
        k = k.reshape(bsz * num_heads, seqlen, head_dim)
        chunk_q = self._chunk_overlap(q, w)
        chunk_k = self._chunk_overlap(k, w)
        return torch.einsum("bcxd,bcyd->bcxy", (chunk_q, chunk_k))

    def forward(self, query: torch.Tensor) -> torch.Tensor:
        n_batch = query.size(0)
        q = self.linear_q(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        k = self.linear_k(query).view(n_batch, -1, self.h, self.d_k).transpose(1, 2)
        return self.sliding_chunks_matmul_qk(q, k, self.w)


def build() -> nn.Module:
    return LongformerAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 12, 4, generator=generator),)


DYNAMIC = {"query": {0: "batch", 1: "time"}}
