"""BART's cross-attention: weights viewed per head to add the mask, then back, over a memory that may be empty.

Reduced from transformers 4.46.3 (PyPI), transformers/models/bart/modeling_bart.py: ``BartAttention``
(lines 132-287) views the projected keys as ``tensor.view(bsz, seq_len, self.num_heads, self.head_dim)``
in ``_shape`` (line 167), and, given a mask, views the weights as ``attn_weights.view(bsz, self.num_heads,
tgt_len, src_len) + attention_mask`` and back with ``.view(bsz * self.num_heads, tgt_len, src_len)``
(lines 244-245), ``src_len`` read as ``key_states.size(1)``; the heads are folded with ``.view(*proj_shape)``
(a starred shape, which the rule leaves: its -1 takes an empty memory). Kept: those views, the cross-attention branch
(``key_value_states`` given) and the mask added before the softmax. Reduced: one layer of 2 heads of width
4, no cache, dropout or head mask, and the mask built from an all-ones memory mask as
``_prepare_4d_attention_mask`` builds it. A memory of no tokens (an encoder given an empty source) makes
``src_len`` 0: eager mode attends to nothing (the output is the projection's bias), while the exported
``Reshape`` to ``(bsz, heads, tgt_len, 0)`` reads the 0 past the weights' rank as "copy" and ONNX
Runtime refuses it; a decoder of no targets is refused the same at the output's ``view(bsz, self.num_heads,
tgt_len, self.head_dim)``, whose 0 copies the head width. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {1: "target"}, "memory": {1: "source"}}


class CrossAttention(nn.Module):
    def __init__(self, embed_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.scaling = self.head_dim ** -0.5
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def _shape(self, tensor, seq_len: int, bsz: int):
        return tensor.view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, x, memory):
        bsz, tgt_len, _ = x.size()
        keep = torch.ones(memory.shape[:2], dtype=x.dtype)
        attention_mask = (1.0 - keep[:, None, None, :].expand(bsz, 1, tgt_len, memory.shape[1])) \
            * torch.finfo(x.dtype).min
        proj_shape = (bsz * self.num_heads, -1, self.head_dim)
        query = self._shape(self.q_proj(x) * self.scaling, tgt_len, bsz).view(*proj_shape)
        key = self._shape(self.k_proj(memory), -1, bsz).reshape(*proj_shape)
        value = self._shape(self.v_proj(memory), -1, bsz).reshape(*proj_shape)
        src_len = key.size(1)
        attn_weights = torch.bmm(query, key.transpose(1, 2))
        attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
        attn_weights = attn_weights.view(bsz * self.num_heads, tgt_len, src_len)
        attn_output = torch.bmm(attn_weights.softmax(dim=-1), value)
        attn_output = attn_output.view(bsz, self.num_heads, tgt_len, self.head_dim).transpose(1, 2)
        return self.out_proj(attn_output.reshape(bsz, tgt_len, self.embed_dim))


def build() -> nn.Module:
    torch.manual_seed(0)
    return CrossAttention().eval()


def inputs(generator):
    return (torch.rand(1, 3, 8, generator=generator), torch.rand(1, 4, 8, generator=generator))
