"""stable-diffusion-webui's sub-quadratic attention: every query at once, or the queries a chunk at a time.

Reduced from AUTOMATIC1111/stable-diffusion-webui @ b6c1a1bbbf29a3041025aa336f6f843ffd7c7d46,
modules/sub_quadratic_attention.py (``narrow_trunc``, lines 21-27; ``_get_attention_scores_no_kv_chunking``,
lines 117-133; ``efficient_dot_product_attention``, lines 141-215, the size test at line 197 and the chunks at
lines 205-213): with
``batch_x_heads, q_tokens, q_channels_per_head = query.shape``, the attention returns
``compute_query_chunk_attn(query=query, key=key, value=value)`` when ``q_tokens <= query_chunk_size`` (its "fast-path
for when there's just 1 query chunk"); otherwise it allocates ``res = torch.zeros_like(query)`` and, for
``i in range(math.ceil(q_tokens / query_chunk_size))``, attends the queries ``narrow_trunc(query, 1,
i * query_chunk_size, min(query_chunk_size, q_tokens))`` to every key and writes them into
``res[:, i * query_chunk_size:i * query_chunk_size + attn_scores.shape[1], :]``. The web UI calls it from its
cross-attention forward (``sub_quad_attention_forward`` in modules/sd_hijack_optimizations.py) with the heads
folded into the batch.

Written here in our own words: the cross-attention is one module with its own projections (self-attention, two
heads), the key/value chunking (taken only where the keys outnumber ``kv_chunk_size``; the web UI sends every key in
one chunk whenever the score matrix fits its threshold) is left out, so the chunk attention is always the no-kv-chunking
one, and the query chunk is 4 tokens (1024 there) so that the example's 8 tokens take the chunked path.

The form differs from the other TRT389 variants: the whole attention is an early ``return`` (the chunks are the
statements after it) and the loop runs over the number of chunks, ``range(math.ceil(n / C))``, each chunk starting
at ``i * C`` and written into a preallocated output. Traced at 8 tokens, the graph holds two chunks of 4 queries at
fixed offsets (``narrow_trunc`` reads its test as a Python bool, and at a multiple of the chunk both lengths are the
full chunk): at 13 tokens the last five queries stay zero. (Traced at a length that is no multiple of the chunk,
the last chunk keeps a traced length and covers the rest, so the graph happens to be right at every length: the
chunks are per query.) The whole attention follows any number of tokens.
"""

import math
from functools import partial

import torch
from torch import nn


def narrow_trunc(input, dim: int, start: int, length: int):
    return torch.narrow(input, dim, start, length if input.shape[dim] >= start + length else input.shape[dim] - start)


def _get_attention_scores_no_kv_chunking(query, key, value, scale: float):
    attn_scores = torch.baddbmm(torch.zeros(1, 1, 1, dtype=query.dtype), query, key.transpose(1, 2),
                                alpha=scale, beta=0)
    attn_probs = attn_scores.softmax(dim=-1)
    return torch.bmm(attn_probs, value)


def efficient_dot_product_attention(query, key, value, query_chunk_size: int = 1024):
    batch_x_heads, q_tokens, q_channels_per_head = query.shape
    scale = q_channels_per_head ** -0.5

    def get_query_chunk(chunk_idx: int):
        return narrow_trunc(query, 1, chunk_idx, min(query_chunk_size, q_tokens))

    compute_query_chunk_attn = partial(_get_attention_scores_no_kv_chunking, scale=scale)

    if q_tokens <= query_chunk_size:
        return compute_query_chunk_attn(query=query, key=key, value=value)

    res = torch.zeros_like(query)
    for i in range(math.ceil(q_tokens / query_chunk_size)):
        attn_scores = compute_query_chunk_attn(query=get_query_chunk(i * query_chunk_size), key=key, value=value)
        res[:, i * query_chunk_size:i * query_chunk_size + attn_scores.shape[1], :] = attn_scores
    return res


class SubQuadraticSelfAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2, query_chunk_size: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.query_chunk_size = query_chunk_size
        self.to_q, self.to_k, self.to_v = (nn.Linear(dim, dim, bias=False) for _ in range(3))
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        h = self.heads
        q, k, v = (t.reshape(b, n, h, c // h).transpose(1, 2).reshape(b * h, n, c // h)
                   for t in (self.to_q(x), self.to_k(x), self.to_v(x)))
        out = efficient_dot_product_attention(q, k, v, query_chunk_size=self.query_chunk_size)
        out = out.reshape(b, h, n, c // h).transpose(1, 2).reshape(b, n, c)
        return self.to_out(out)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SubQuadraticSelfAttention().eval()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 8) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, tokens, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}}
CALL = "if q_tokens <= query_chunk_size:"
