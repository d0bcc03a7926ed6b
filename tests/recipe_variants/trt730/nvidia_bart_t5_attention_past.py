"""T5's attention with cached keys and values, as NVIDIA's BART/T5 example carries it (a copy of transformers'
``T5Attention`` of its time): ``batch_size, seq_length = hidden_states.shape[:2]``, then ``real_seq_length =
seq_length`` and, with a cache, ``real_seq_length += past_key_value[0].shape[2]``; the relative position bias is
computed for ``real_seq_length`` query positions and, with a cache, cut back to the new ones with
``position_bias[:, :, -seq_length:, :]``. In eager mode the sizes are ``int``s and ``+=`` rebinds
``real_seq_length`` alone. While the TorchScript exporter traces (a decoder exported with its cache, the form a
TensorRT deployment runs step by step), ``seq_length`` is a 0-d tensor, ``real_seq_length`` the same tensor, and
``+=`` adds the cached length to it in place: the cut keeps every position instead of the new ones, and the bias
no longer fits the scores (``scores += position_bias``), so the export stops there.

Reduced from NVIDIA/DeepLearningExamples @ 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd,
PyTorch/LanguageModeling/BART/bart/modeling/modeling_t5.py: ``T5Attention._relative_position_bucket`` (lines
337-383), ``compute_bias`` (lines 385-398) and ``forward`` (lines 400-513; the alias at line 420, the update at
line 428, the cut at line 488). Written here in our own words. Kept: the sizes unpacked from ``.shape[:2]``, the
alias and its update by the cache's length, the key length, the query/key/value projections by heads, the cached
keys and values concatenated before the new ones, the bucketed relative positions (unidirectional, a decoder's)
and their embedding, the cut to the new positions, the softmax and the output projection. Reduced: a small
width (8, two heads, 8 buckets up to a distance of 16); cross-attention, the mask, head masking, dropout,
pruning, the returned cache and the update's ``query_length`` override (``... if query_length is None else
query_length``) are left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class T5Attention(nn.Module):
    def __init__(self, d_model: int = 8, n_heads: int = 2, num_buckets: int = 8, max_distance: int = 16) -> None:
        super().__init__()
        self.n_heads, self.key_value_proj_dim = n_heads, d_model // n_heads
        self.inner_dim = n_heads * self.key_value_proj_dim
        self.relative_attention_num_buckets, self.max_distance = num_buckets, max_distance
        self.q = nn.Linear(d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, d_model, bias=False)
        self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    def _relative_position_bucket(self, relative_position):
        """A decoder's buckets: only past positions; exact ones up to half the buckets, then logarithmic."""
        num_buckets = self.relative_attention_num_buckets
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        if_large = max_exact + (torch.log(relative_position.float() / max_exact)
                                / math.log(self.max_distance / max_exact) * (num_buckets - max_exact)).to(torch.long)
        if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
        return torch.where(is_small, relative_position, if_large)

    def compute_bias(self, query_length, key_length):
        context_position = torch.arange(query_length, dtype=torch.long)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
        buckets = self._relative_position_bucket(memory_position - context_position)
        return self.relative_attention_bias(buckets).permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states, past_key_value=None):
        batch_size, seq_length = hidden_states.shape[:2]
        real_seq_length = seq_length
        if past_key_value is not None:
            real_seq_length += past_key_value[0].shape[2]
        key_length = real_seq_length

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(hidden_states))
        value_states = shape(self.v(hidden_states))
        if past_key_value is not None:
            key_states = torch.cat([past_key_value[0], key_states], dim=2)
            value_states = torch.cat([past_key_value[1], value_states], dim=2)
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        position_bias = self.compute_bias(real_seq_length, key_length)
        if past_key_value is not None:
            position_bias = position_bias[:, :, -seq_length:, :]
        scores += position_bias
        attn_weights = F.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)
        return self.o(attn_output)


class CachedDecoderStep(nn.Module):
    """One decoder self-attention step over new positions, given the cached keys and values."""

    def __init__(self) -> None:
        super().__init__()
        self.attention = T5Attention()

    def forward(self, hidden_states, past_key, past_value):
        return self.attention(hidden_states, past_key_value=(past_key, past_value))


def build() -> nn.Module:
    return CachedDecoderStep()


def inputs(generator: torch.Generator, batch: int = 2, new: int = 1, past: int = 5) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, new, 8, generator=generator), torch.randn(batch, 2, past, 4, generator=generator),
            torch.randn(batch, 2, past, 4, generator=generator))


DYNAMIC = {"hidden_states": {0: "batch", 1: "new"}, "past_key": {0: "batch", 2: "past"},
           "past_value": {0: "batch", 2: "past"}}
CALL = "real_seq_length += past_key_value[0].shape[2]"
