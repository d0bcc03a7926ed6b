"""torchtitan's grouped-query attention through its SDPA wrapper, which passes ``enable_gqa`` on.

Reduced from pytorch/torchtitan at commit b5bcd76c66d0acb1a08b176d9639425bc55e0b2a,
torchtitan/models/common/attention.py: ``ScaledDotProductAttention.forward`` (lines 395-426: the
(batch, length, heads, head_dim) tensors transposed, then, under ``sdpa_kernel(self.sdpa_backends,
set_priority=True)``, ``F.scaled_dot_product_attention(q, k, v, scale=scale, is_causal=is_causal,
enable_gqa=enable_gqa)``, transposed back) and ``GQAttention`` (lines 870-960: ``self.enable_gqa =
self.n_heads > self.n_kv_heads``, passed as ``enable_gqa=self.enable_gqa``). The fused QKV linear,
rotary embedding and QK norm are replaced by three plain projections here; 4 query heads share 2
key/value heads. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel


class ScaledDotProductAttention(nn.Module):
    sdpa_backends: list = []

    def __init__(self) -> None:
        super().__init__()
        if not self.sdpa_backends:
            self.sdpa_backends = [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]

    def forward(self, q_BLNH, k_BLNH, v_BLNH, *, scale=None, enable_gqa=False, is_causal=True):
        q_BNLH, k_BNLH, v_BNLH = q_BLNH.transpose(1, 2), k_BLNH.transpose(1, 2), v_BLNH.transpose(1, 2)
        with sdpa_kernel(self.sdpa_backends, set_priority=True):
            out_BNLH = F.scaled_dot_product_attention(
                q_BNLH,
                k_BNLH,
                v_BNLH,
                scale=scale,
                is_causal=is_causal,
                enable_gqa=enable_gqa,
            )
        return out_BNLH.transpose(1, 2)


class GQAttention(nn.Module):
    def __init__(self, dim: int = 32, n_heads: int = 4, n_kv_heads: int = 2) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.enable_gqa = self.n_heads > self.n_kv_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        self.inner_attention = ScaledDotProductAttention()
        self.scaling = None

    def forward(self, x):
        bs, seqlen, _ = x.shape
        xq = self.wq(x).view(bs, seqlen, -1, self.head_dim)
        xk = self.wk(x).view(bs, seqlen, -1, self.head_dim)
        xv = self.wv(x).view(bs, seqlen, -1, self.head_dim)
        out = self.inner_attention(xq, xk, xv, scale=self.scaling, enable_gqa=self.enable_gqa).contiguous()
        return self.wo(out.view(bs, seqlen, -1))


def build() -> nn.Module:
    torch.manual_seed(0)
    return GQAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, 32, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "seqlen"}}
