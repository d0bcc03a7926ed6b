"""fairseq's self-attention for the convolutional seq2seq model with self-attention (``fconv_self_att``):
``SingleHeadAttention.forward`` reads ``tgt_len = query.size(0)``, keeps a second name for the length the
attention weights will have, ``tgt_size = tgt_len``, and with a scalar bias (a slot of zeros to "attend to
nothing", prepended to the weights and the values) grows it with ``tgt_size += 1``; the output is laid back out with
``attn.view(tgt_len, bsz, self.embed_dim)``. In eager mode ``tgt_len`` is an ``int`` and ``+=`` rebinds
``tgt_size`` alone. While the TorchScript exporter traces, ``tgt_len`` is a 0-d tensor, ``tgt_size`` the same
tensor, and ``+=`` adds one to it in place: the final ``view`` asks for one more time step than the attention has,
and the export stops there.

Reduced from facebookresearch/fairseq @ 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99,
fairseq/modules/downsampled_multihead_attention.py: ``SingleHeadAttention.forward`` (lines 75-168; the alias at
line 137, the update at line 141, the ``view`` at line 164), with fairseq/modules/scalar_bias.py for the bias
column. Written here in our own words. Kept: the sizes from ``.size()``, the alias and its update, the future
mask (``tril``/``triu`` of ``tgt_len``), the scalar bias on the weights and the values, the softmax and the
``view`` by ``tgt_len``. Reduced: weight-normalised linear layers are plain ones; dropout, gating, downsampling
and the key padding mask (a data-dependent ``if``) are left out; the bias column is a concatenation (``ScalarBias``
is an autograd function that fills a larger tensor); ``DownsampledMultiHeadAttention``, which wraps the head and
repeats the alias and its update (lines 246-248), is left out, the head called directly.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def scalar_bias(input, dim, bias_init=0):
    """``input`` with one more entry at the front of ``dim``, holding ``bias_init``."""
    size = list(input.shape)
    size[dim] = 1
    return torch.cat([input.new_full(size, bias_init), input], dim=dim)


class SingleHeadAttention(nn.Module):
    def __init__(self, embed_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.in_proj_q = nn.Linear(embed_dim, embed_dim)
        self.in_proj_k = nn.Linear(embed_dim, embed_dim)
        self.in_proj_v = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)
        self.scaling = self.head_dim ** -0.5

    def forward(self, query, key, value, mask_future_timesteps=False, use_scalar_bias=False):
        src_len, bsz, out_channels = key.size()
        tgt_len = query.size(0)
        size = bsz * self.num_heads
        q = self.in_proj_q(query)
        k = self.in_proj_k(key)
        v = self.in_proj_v(value)
        src_len = k.size()[0]
        q *= self.scaling
        q = q.view(tgt_len, size, self.head_dim).transpose(0, 1)
        k = k.view(src_len, size, self.head_dim).transpose(0, 1)
        v = v.view(src_len, size, self.head_dim).transpose(0, 1)
        attn_weights = torch.bmm(q, k.transpose(1, 2))
        if mask_future_timesteps:
            attn_weights *= torch.tril(attn_weights.new_ones(tgt_len, tgt_len), diagonal=-1).unsqueeze(0)
            attn_weights += torch.triu(attn_weights.new_full((tgt_len, tgt_len), -math.inf), diagonal=0).unsqueeze(0)
        tgt_size = tgt_len
        if use_scalar_bias:
            attn_weights = scalar_bias(attn_weights, 2)
            v = scalar_bias(v, 1)
            tgt_size += 1
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn = torch.bmm(attn_weights, v)
        attn = attn.transpose(0, 1).contiguous().view(tgt_len, bsz, self.embed_dim)
        return self.out_proj(attn), attn_weights


class SelfAttention(nn.Module):
    """fconv_self_att's decoder self-attention (fairseq/models/fconv_self_att.py, line 588): causal, with the scalar
    bias."""

    def __init__(self) -> None:
        super().__init__()
        self.attention = SingleHeadAttention()

    def forward(self, x):
        return self.attention(x, x, x, mask_future_timesteps=True, use_scalar_bias=True)


def build() -> nn.Module:
    return SelfAttention()


def inputs(generator: torch.Generator, time: int = 5, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.randn(time, batch, 8, generator=generator),)


DYNAMIC = {"x": {0: "time", 1: "batch"}}
CALL = "tgt_size += 1"
