"""XLNet's attention core, whose mask and probabilities change layout by one-operand einsums: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/xlnet/modeling_xlnet.py,
``XLNetRelativeAttention.rel_attn_core`` (lines 96-141: the mask as
``attn_score - 1e30 * torch.einsum("ijbn->bnij", attn_mask)`` on line 129 and the returned
probabilities ``torch.einsum("bnij->ijbn", attn_prob)`` on line 139). Written here in our own
words: the position and segment terms of the score and the dropout are left out; the content
score ``einsum("ibnd,jbnd->bnij", ...)`` and the output ``einsum("bnij,jbnd->ibnd", ...)`` are
kept: they are not one matrix product in TRT303's sense (the batch labels do not lead), so
TRT303 names them without a fix and their Einsum nodes stay.
"""

import torch
from torch import nn


class RelativeAttentionCore(nn.Module):
    def __init__(self, heads: int = 2, head_dim: int = 3) -> None:
        super().__init__()
        self.r_w_bias = nn.Parameter(torch.randn(heads, head_dim))
        self.scale = head_dim ** -0.5

    def forward(self, q_head, k_head_h, v_head_h, attn_mask):
        ac = torch.einsum("ibnd,jbnd->bnij", q_head + self.r_w_bias, k_head_h)
        attn_score = ac * self.scale
        attn_score = attn_score - 1e30 * torch.einsum("ijbn->bnij", attn_mask)
        attn_prob = nn.functional.softmax(attn_score, dim=3)
        attn_vec = torch.einsum("bnij,jbnd->ibnd", attn_prob, v_head_h)
        return attn_vec, torch.einsum("bnij->ijbn", attn_prob)


def build() -> nn.Module:
    return RelativeAttentionCore()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    q = torch.randn(4, 2, 2, 3, generator=generator)
    k, v = torch.randn(5, 2, 2, 3, generator=generator), torch.randn(5, 2, 2, 3, generator=generator)
    mask = (torch.rand(4, 5, 2, 1, generator=generator) > 0.7).float().expand(4, 5, 2, 2).contiguous()
    return q, k, v, mask


DYNAMIC = {"q_head": {0: "qlen", 1: "batch"}, "k_head_h": {0: "klen", 1: "batch"},
           "v_head_h": {0: "klen", 1: "batch"}, "attn_mask": {0: "qlen", 1: "klen", 2: "batch"}}
