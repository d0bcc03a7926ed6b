"""CvT's attention with the operands of each einsum passed in a list: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/cvt/modeling_cvt.py,
``CvtSelfAttention.forward`` (lines 201-212: ``torch.einsum("bhlk,bhtk->bhlt", [query, key])`` on
line 205, ``torch.einsum("bhlt,bhtv->bhlv", [attention_probs, value])`` on line 209; the model is
Microsoft's CvT). Written here in our own words: the convolutional projections of the tokens and
the class token are left out (plain linear projections of a token sequence instead); the head
split (``rearrange_for_multi_head_attention``, a ``view`` by the head size), the scale and the
softmax are kept.
"""

import torch
from torch import nn


class ConvolutionalAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.scale = self.head_dim ** -0.5
        self.to_q, self.to_k, self.to_v = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)

    def split_heads(self, t):
        b, n, _ = t.shape
        return t.view(b, n, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, tokens):
        query = self.split_heads(self.to_q(tokens))
        key = self.split_heads(self.to_k(tokens))
        value = self.split_heads(self.to_v(tokens))
        attention_score = torch.einsum("bhlk,bhtk->bhlt", [query, key]) * self.scale
        attention_probs = torch.nn.functional.softmax(attention_score, dim=-1)
        context = torch.einsum("bhlt,bhtv->bhlv", [attention_probs, value])
        b, _, n, _ = context.shape
        return context.permute(0, 2, 1, 3).reshape(b, n, self.heads * self.head_dim)


def build() -> nn.Module:
    return ConvolutionalAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator),)


DYNAMIC = {"tokens": {0: "batch", 1: "tokens"}}
