"""MiniMax-M3-VL's block indexer: each query's top key blocks, keys padded to whole blocks.

Reduced from transformers 5.24.0 (the pinned wheel), transformers/models/minimax_m3_vl/
modeling_minimax_m3_vl.py, ``MiniMaxM3VLIndexer.forward`` (lines 553-599). Queries and one key
head are projected and normalized; the number of key blocks is the ceiling written
``num_key_blocks = -(-k_len // self.block_size)`` with ``k_len`` the keys' traced length, the
scores are padded with ``-inf`` by ``num_key_blocks * block_size - k_len`` columns, viewed as
``(..., num_key_blocks, block_size)`` and max-pooled per block; each query's own and previous
blocks (``position_ids // self.block_size``, minus a range, clamped at 0) are forced in with
``scatter_``, and the ``min(topk_blocks, num_key_blocks)`` best blocks are returned, ``-1``
where a block lies wholly in the future. Under the TorchScript exporter ``-(-10 // 4)`` is 2
instead of 3 blocks, at the traced length too: the padding comes out -2 (``F.pad`` crops two key
columns), the scores hold two blocks, and ONNX Runtime refuses the ``scatter_`` whose block
indices reach the third. Written here in our own words with small widths, without the rotary
embedding and the cache.
"""

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class BlockIndexer(nn.Module):
    def __init__(self, hidden_size=16, head_dim=8, num_heads=2, block_size=4, topk_blocks=3, local_blocks=2) -> None:
        super().__init__()
        self.head_dim = head_dim
        self.num_heads = num_heads
        self.block_size = block_size
        self.topk_blocks = topk_blocks
        self.local_blocks = local_blocks
        self.q_proj = nn.Linear(hidden_size, num_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, head_dim, bias=False)
        self.q_norm = RMSNorm(head_dim)
        self.k_norm = RMSNorm(head_dim)

    def forward(self, hidden_states, position_ids):
        batch, q_len, _ = hidden_states.shape
        idx_q = self.q_norm(self.q_proj(hidden_states).view(batch, q_len, -1, self.head_dim)).transpose(1, 2)
        idx_k = self.k_norm(self.k_proj(hidden_states).view(batch, q_len, 1, self.head_dim)).transpose(1, 2)

        k_len = idx_k.shape[2]
        num_key_blocks = -(-k_len // self.block_size)  # ceil-div
        pad = num_key_blocks * self.block_size - k_len

        scores = torch.matmul(idx_q.float(), idx_k.float().transpose(-1, -2))
        k_positions = torch.arange(k_len, device=idx_q.device)
        token_future = k_positions[None, None, None, :] > position_ids[:, None, :, None]
        scores = scores.masked_fill(token_future, float("-inf"))
        if pad:
            scores = F.pad(scores, (0, pad), value=float("-inf"))
        scores = scores.view(batch, self.num_heads, q_len, num_key_blocks, self.block_size)
        block_scores = scores.amax(dim=-1)

        q_block = position_ids // self.block_size
        if self.local_blocks > 0:
            local = torch.arange(self.local_blocks, device=idx_q.device)
            local_idx = (q_block[..., None] - local.view(1, 1, -1)).clamp(min=0)
            local_idx = local_idx.unsqueeze(1).expand(-1, self.num_heads, -1, -1)
            block_scores.scatter_(-1, local_idx, float("inf"))

        topk = min(self.topk_blocks, num_key_blocks)
        topk_scores, topk_indices = block_scores.topk(topk, dim=-1)
        return topk_indices.masked_fill(topk_scores == float("-inf"), -1)


def build() -> nn.Module:
    return BlockIndexer().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # 10 tokens: three key blocks of 4, the last one half full.
    hidden = torch.randn(2, 10, 16, generator=generator)
    return hidden, torch.arange(10).expand(2, 10).contiguous()


DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}, "position_ids": {0: "batch", 1: "sequence"}}
