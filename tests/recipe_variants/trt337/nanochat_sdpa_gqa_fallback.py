"""nanochat's attention without FlashAttention 3: the SDPA fallback with ``enable_gqa`` from the head counts.

Reduced from karpathy/nanochat at commit 92d63d4e8bb4df75c3b71618f31ddde2378b2bcd,
nanochat/flash_attention.py: ``_sdpa_attention`` (lines 77-110: full context of equal lengths goes to
``F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=enable_gqa)``, line 88) and
``flash_attn_func`` (lines 113-136: (B, T, H, D) transposed to (B, H, T, D), ``enable_gqa = q.size(1) !=
k.size(1)``); and nanochat/gpt.py ``CausalSelfAttention`` (lines 67-125: ``n_kv_head`` key/value heads,
QK norm by ``F.rms_norm`` (gpt.py lines 42-43), the window ``(-1, 0)`` of full context). The rotary embedding, value embeddings, KV cache and
the sliding-window mask path are left out; 6 query heads share 2 key/value heads. Written here in our
own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _sdpa_attention(q, k, v, window_size, enable_gqa):
    window = window_size[0]
    return F.scaled_dot_product_attention(q, k, v, is_causal=window < 0, enable_gqa=enable_gqa)


def flash_attn_func(q, k, v, causal=False, window_size=(-1, -1)):
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)
    v = v.transpose(1, 2)
    enable_gqa = q.size(1) != k.size(1)
    y = _sdpa_attention(q, k, v, window_size, enable_gqa)
    return y.transpose(1, 2)


def norm(x):
    return F.rms_norm(x, (x.size(-1),))


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int = 48, n_head: int = 6, n_kv_head: int = 2) -> None:
        super().__init__()
        self.n_head, self.n_kv_head = n_head, n_kv_head
        self.head_dim = n_embd // n_head
        self.c_q = nn.Linear(n_embd, n_head * self.head_dim, bias=False)
        self.c_k = nn.Linear(n_embd, n_kv_head * self.head_dim, bias=False)
        self.c_v = nn.Linear(n_embd, n_kv_head * self.head_dim, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)

    def forward(self, x):
        B, T, C = x.size()
        q = self.c_q(x).view(B, T, self.n_head, self.head_dim)
        k = self.c_k(x).view(B, T, self.n_kv_head, self.head_dim)
        v = self.c_v(x).view(B, T, self.n_kv_head, self.head_dim)
        q, k = norm(q), norm(k)
        y = flash_attn_func(q, k, v, causal=True, window_size=(-1, 0))
        y = y.contiguous().view(B, T, -1)
        return self.c_proj(y)


def build() -> nn.Module:
    torch.manual_seed(0)
    return CausalSelfAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 48, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
