"""reformer_fastai's scaled dot-product attention: the causal mask written at ``torch.triu_indices(n, n, 1)``.

Reduced from arampacha/reformer_fastai @ 72ee639a2cc48c262ec5a1245e33fa1814cc7cbf, reformer_fastai/attention.py:
``ScaledDotProdAttention.forward`` (lines 82-103) reads ``n = q.size(1)``, splits the heads, takes
``dots = torch.einsum('bhid,bhjd->bhij', q*self.scale, k)``, writes ``SELF_ATTN_MASK_VAL`` on the diagonal when queries
and keys are shared (``m = torch.arange(n)``, ``dots[:, :, m, m] = ...``), and, when causal, ``i, j =
torch.triu_indices(n, n, 1)`` then ``dots[:,:,i,j] = MASK_VAL`` (lines 94-96) before the softmax; the mask values are
the module's constants (lines 30-31). Kept: the heads, both in-place masks, the softmax and the product with the
values. Reduced: the heads split by ``view``/``transpose`` where the original uses einops' ``rearrange``, no padding
mask, no dropout, no stored attention. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"q": {0: "batch", 1: "tokens"}, "k": {0: "batch", 1: "tokens"}, "v": {0: "batch", 1: "tokens"}}
#: The line of the triangle's indices (the rule's finding).
CALL = "i, j = torch.triu_indices(n, n, 1)"
MASK_VAL = -5e4
SELF_ATTN_MASK_VAL = -1e4
D_MODEL, HEADS = 8, 2


def _heads(t, heads):
    b, n, d = t.shape
    return t.view(b, n, heads, d // heads).transpose(1, 2)


class ScaledDotProdAttention(nn.Module):
    def __init__(self, d_model, n_heads, causal=True, shared_qk=True):
        super().__init__()
        self.n_heads, self.causal, self.shared_qk = n_heads, causal, shared_qk
        self.scale = (d_model // n_heads) ** -0.5

    def forward(self, q, k, v):
        n = q.size(1)
        q, k, v = (_heads(t, self.n_heads) for t in (q, k, v))
        dots = torch.einsum("bhid,bhjd->bhij", q * self.scale, k)
        if self.shared_qk:
            m = torch.arange(n)
            dots[:, :, m, m] = SELF_ATTN_MASK_VAL
        if self.causal:
            i, j = torch.triu_indices(n, n, 1)
            dots[:, :, i, j] = MASK_VAL
        attn = F.softmax(dots, -1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v)
        b, h, t, d = out.shape
        return out.transpose(1, 2).reshape(b, t, h * d)


def build() -> nn.Module:
    return ScaledDotProdAttention(D_MODEL, HEADS).eval()


def inputs(generator: torch.Generator, b: int = 2, n: int = 5) -> tuple[torch.Tensor, ...]:
    """Queries, keys and values of one sequence length."""
    return tuple(torch.randn(b, n, D_MODEL, generator=generator) for _ in range(3))
