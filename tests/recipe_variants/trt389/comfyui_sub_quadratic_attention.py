"""ComfyUI's sub-quadratic attention: every query at once, or chunks of queries concatenated, by the number of queries.

Reduced from comfyanonymous/ComfyUI @ 01312a55a43596dd0077a1d4c0c97856c5610167,
comfy/ldm/modules/sub_quadratic_attention.py (``dynamic_slice``, lines 29-35; ``_get_attention_scores_no_kv_chunking``,
lines 132-171; ``efficient_dot_product_attention``, lines 177-251, the size test at line 234 and the chunks at lines
244-250): with ``batch_x_heads, q_tokens, q_channels_per_head = query.shape`` and the keys given transposed
(``key_t``, channels before tokens), the attention returns ``compute_query_chunk_attn(query=query, key_t=key_t,
value=value)`` when ``q_tokens <= query_chunk_size``; otherwise it concatenates, on the token axis, a list
comprehension of the chunk attentions ``for i in range(math.ceil(q_tokens / query_chunk_size))``, each chunk cut by
``dynamic_slice(query, (0, i * query_chunk_size, 0), (batch_x_heads, min(query_chunk_size, q_tokens),
q_channels_per_head))``, a slice per axis from a start and a size.

Written here in our own words: the attention is one self-attention module with two heads that transposes its keys
as ComfyUI's ``attention_sub_quad`` does before the call; the key/value chunking (taken only where the keys outnumber
``kv_chunk_size``), the float32 upcast and the out-of-memory softmax fallback are left out; the score's bias is a zero
tensor (ComfyUI passes ``torch.empty`` with ``beta=0``, which eager mode ignores but an exported ``beta * input``
would not); ``dynamic_slice`` indexes with a tuple of its slices (a list of slices is deprecated as an index); and the
query chunk is 4 tokens (1024 there) so that the example's 8 tokens take the chunked path.

The form differs from the web UI's: the chunks are a comprehension joined by ``torch.cat`` rather than writes into a
preallocated output, and each chunk is cut with a size read as ``min(query_chunk_size, q_tokens)``, a Python
number while tracing. Traced at 8 tokens, the graph holds two chunks of 4 queries at fixed offsets: at 9 tokens or
more it drops the queries past the eighth and its reshape back to the heads fails (shorter inputs pass, the slices
clamped to the queries there are). The whole attention follows any number of tokens.
"""

import math
from functools import partial

import torch
from torch import nn


def dynamic_slice(x, starts, sizes):
    slicing = [slice(start, start + size) for start, size in zip(starts, sizes)]
    return x[tuple(slicing)]


def _get_attention_scores_no_kv_chunking(query, key_t, value, scale: float):
    attn_scores = torch.baddbmm(torch.zeros(1, 1, 1, dtype=query.dtype), query, key_t, alpha=scale, beta=0)
    attn_probs = attn_scores.softmax(dim=-1)
    return torch.bmm(attn_probs.to(value.dtype), value)


def efficient_dot_product_attention(query, key_t, value, query_chunk_size: int = 1024):
    batch_x_heads, q_tokens, q_channels_per_head = query.shape
    scale = q_channels_per_head ** -0.5

    def get_query_chunk(chunk_idx: int):
        return dynamic_slice(query, (0, chunk_idx, 0),
                             (batch_x_heads, min(query_chunk_size, q_tokens), q_channels_per_head))

    compute_query_chunk_attn = partial(_get_attention_scores_no_kv_chunking, scale=scale)

    if q_tokens <= query_chunk_size:
        return compute_query_chunk_attn(query=query, key_t=key_t, value=value)

    res = torch.cat([
        compute_query_chunk_attn(query=get_query_chunk(i * query_chunk_size), key_t=key_t, value=value)
        for i in range(math.ceil(q_tokens / query_chunk_size))
    ], dim=1)
    return res


class SubQuadSelfAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2, query_chunk_size: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.query_chunk_size = query_chunk_size
        self.to_q, self.to_k, self.to_v = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        h = self.heads
        q, k, v = (t.reshape(b, n, h, c // h).permute(0, 2, 1, 3).reshape(b * h, n, c // h)
                   for t in (self.to_q(x), self.to_k(x), self.to_v(x)))
        out = efficient_dot_product_attention(q, k.transpose(1, 2), v, query_chunk_size=self.query_chunk_size)
        out = out.reshape(b, h, n, c // h).permute(0, 2, 1, 3).reshape(b, n, c)
        return self.to_out(out)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SubQuadSelfAttention().eval()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 8) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, tokens, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
CALL = "if q_tokens <= query_chunk_size:"
