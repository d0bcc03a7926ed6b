"""diffusers' xformers attention backend: a key-padding mask written into an aligned 4-D bias for every head and query.

Reduced from huggingface/diffusers @ 58eb52c0803ea9af3abec60841c2a093bdf1f951,
src/diffusers/models/attention_dispatch.py: ``_xformers_attention`` (the ``XFORMERS`` backend of
``dispatch_attention_fn``) turns a 2-D mask into the 4-D additive bias xformers wants: it makes
``aligned_mask = torch.zeros((batch_size, num_heads_q, seq_len_q, aligned_seq_len))`` with the key length rounded
up to a multiple of 8, converts the mask with ``_prepare_additive_attn_mask`` (``[batch, 1, 1, seq_len_k]``, 0 to
attend and -inf not to) and writes ``aligned_mask[:, :, :, :original_seq_len] = mask_additive`` (line 4307: the
``(B, 1, 1, K)`` bias broadcast to every head and query), fills the padding with -inf and slices the bias to
the key length before ``xops.memory_efficient_attention``. Kept: the shapes unpacked from the query and key,
``_prepare_additive_attn_mask`` in its form, the aligned zeros, the broadcast write, the padding and the
slice. Reduced: the attention itself is plain softmax attention with the bias (no xformers), no causal, GQA or
4-D mask paths. Written here in our own words. The number of queries and keys are dynamic: the TorchScript export
broadcasts the bias to the example's heads and queries. The bias is the result of a call, which the code alone
does not show to be a tensor: the rule takes the line with a recorded run's facts (the name seen holding a tensor at
the write); ``migrate`` does not apply it yet (ONNX Runtime refuses a fused ``Reshape`` with no line: see the
test).
"""

import torch
from torch import nn

DYNAMIC = {"query": {0: "batch", 1: "queries"}, "key": {0: "batch", 1: "keys"}, "value": {0: "batch", 1: "keys"},
           "attn_mask": {0: "batch", 1: "keys"}}
#: The line of the broadcast write (the rule's finding).
CALL = "aligned_mask[:, :, :, :original_seq_len] = mask_additive"


def _prepare_additive_attn_mask(attn_mask: torch.Tensor, target_dtype: torch.dtype,
                                reshape_4d: bool = True) -> torch.Tensor:
    if attn_mask.dtype == torch.bool:
        attn_mask = torch.where(attn_mask, 0.0, float("-inf"))
        attn_mask = attn_mask.to(dtype=target_dtype)
    else:
        attn_mask = attn_mask.to(dtype=target_dtype)
    if reshape_4d:
        batch_size, seq_len_k = attn_mask.shape
        attn_mask = attn_mask.view(batch_size, 1, 1, seq_len_k)
    return attn_mask


class XformersMaskedAttention(nn.Module):
    def forward(self, query, key, value, attn_mask):
        batch_size, seq_len_q, num_heads_q, _ = query.shape
        _, seq_len_kv, num_heads_kv, _ = key.shape

        original_seq_len = attn_mask.size(1)
        aligned_seq_len = ((original_seq_len + 7) // 8) * 8
        aligned_mask = torch.zeros((batch_size, num_heads_q, seq_len_q, aligned_seq_len), dtype=query.dtype,
                                   device=query.device)
        mask_additive = _prepare_additive_attn_mask(attn_mask, target_dtype=query.dtype)
        aligned_mask[:, :, :, :original_seq_len] = mask_additive
        aligned_mask[:, :, :, original_seq_len:] = float("-inf")
        attn_mask = aligned_mask[:, :, :, :seq_len_kv]

        q, k, v = query.transpose(1, 2), key.transpose(1, 2), value.transpose(1, 2)
        scores = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5 + attn_mask
        return (scores.softmax(-1) @ v).transpose(1, 2)


def build() -> nn.Module:
    return XformersMaskedAttention().eval()


def inputs(generator: torch.Generator, batch: int = 2, queries: int = 5, keys: int = 6) -> tuple[torch.Tensor, ...]:
    """Query ``(batch, queries, 2 heads, 8)``, key and value ``(batch, keys, 2, 8)`` and a key-padding mask that
    keeps the first key of each row (and a random half of the others)."""
    mask = torch.rand(batch, keys, generator=generator) > 0.5
    mask[:, :1] = True
    return (torch.randn(batch, queries, 2, 8, generator=generator), torch.randn(batch, keys, 2, 8, generator=generator),
            torch.randn(batch, keys, 2, 8, generator=generator), mask)
