"""Keys and values cut from one projection with the method ``.tensor_split``: UnifiedML.

Reduced from slerman12/UnifiedML (commit 75d2ec82625a560b76f61e3541b0a2bcc2a15688),
Blocks/Architectures/MultiHeadAttention.py, ``CrossAttention.forward``: keys and values
come from one linear layer over the context and are cut apart on the call's result,
``self.to_kv(context).tensor_split([self.dim], dim=-1)``. Written here in our own words,
with the heads laid out by reshapes in place of einops and the memory-planning and "talking heads"
options left out.
"""

import torch
from torch import nn


class CrossAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2, context_dim: int = 6, value_dim: int = 10) -> None:
        super().__init__()
        self.dim = dim
        self.heads = heads
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(context_dim, dim + value_dim, bias=False)

    def _heads(self, t):
        return t.reshape(t.shape[0], t.shape[1], self.heads, t.shape[-1] // self.heads).transpose(1, 2)

    def forward(self, x, context):
        q = self.to_q(x)
        k, v = self.to_kv(context).tensor_split([self.dim], dim=-1)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        attn = (q @ k.transpose(-1, -2) * self.dim ** -0.5).softmax(dim=-1)
        out = attn @ v
        return out.transpose(1, 2).flatten(2)


def build() -> nn.Module:
    return CrossAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(2, 4, 8, generator=generator), torch.randn(2, 7, 6, generator=generator)


DYNAMIC = {"x": {0: "batch", 1: "queries"}, "context": {0: "batch", 1: "keys"}}
