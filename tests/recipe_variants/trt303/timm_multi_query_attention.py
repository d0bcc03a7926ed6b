"""MobileNetV4's multi-query attention, keys and values projected by a weight shared over the batch: timm.

Reduced from timm 1.0.31 (the PyPI wheel), timm/layers/attention2d.py,
``MultiQueryAttentionV2.forward`` (lines 72-91: ``k = torch.einsum('bmd,dk->bmk', reshaped_m,
self.key_proj)`` on line 81 and ``v = torch.einsum('bmd,dv->bmv', reshaped_m, self.value_proj)``
on line 87, the weights bare (dim, key_dim) matrices; the query, score, mix and output einsums on
lines 80, 83, 88 and 89). Written here in our own words with fewer heads and channels; the
dropouts are left out. The key and value products are one matrix product each with the weight
broadcast over the batch (not taken before); the query, score and mix einsums contract one label
with free labels on both sides (``bnd,hkd->bnhk``: two free labels in the weight), one matmul
each once their axes are moved (not taken before either); the output einsum (``bnhv,dhv->bdn``)
contracts two labels, so TRT303 names it without a fix and its Einsum node stays.
"""

import torch
from torch import nn


class MultiQueryAttention(nn.Module):
    def __init__(self, dim: int = 6, heads: int = 2, key_dim: int = 4, value_dim: int = 3) -> None:
        super().__init__()
        self.scale = key_dim ** -0.5
        self.query_proj = nn.Parameter(torch.randn(heads, key_dim, dim) * dim ** -0.5)
        self.key_proj = nn.Parameter(torch.randn(dim, key_dim) * dim ** -0.5)
        self.value_proj = nn.Parameter(torch.randn(dim, value_dim) * dim ** -0.5)
        self.out_proj = nn.Parameter(torch.randn(dim, heads, value_dim) * dim ** -0.5)

    def _reshape_input(self, t):
        s = t.shape
        return t.reshape(s[0], s[1], -1).transpose(1, 2)

    def forward(self, x):
        b, _, h, w = x.shape
        reshaped_x = self._reshape_input(x)
        q = torch.einsum('bnd,hkd->bnhk', reshaped_x, self.query_proj)
        k = torch.einsum('bmd,dk->bmk', reshaped_x, self.key_proj)
        attn = (torch.einsum('bnhk,bmk->bnhm', q, k) * self.scale).softmax(dim=-1)
        v = torch.einsum('bmd,dv->bmv', reshaped_x, self.value_proj)
        o = torch.einsum('bnhm,bmv->bnhv', attn, v)
        result = torch.einsum('bnhv,dhv->bdn', o, self.out_proj)
        return result.reshape(b, -1, h, w)


def build() -> nn.Module:
    return MultiQueryAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 3, 4, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
