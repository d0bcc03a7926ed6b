"""torchtitan's flex attention wrapper: a compiled copy held as a class attribute, called through
the class, with a causal block mask the model builds before its forward runs.

Reduced from pytorch/torchtitan at commit 0012170a0708b751408e6085f970082ecd678d2b:
torchtitan/models/attention.py, ``FlexAttentionWrapper`` (lines 60-102: the class attribute
``_compiled_flex_attn: ClassVar[Callable] = torch.compile(flex_attention,
mode="max-autotune-no-cudagraphs")``, called as ``FlexAttentionWrapper._compiled_flex_attn(q, k, v,
block_mask=block_mask, scale=scale, return_lse=return_lse)``), ``get_causal_mask_mod`` (the
module-level ``_causal_mask``, ``q_idx >= kv_idx``) and ``create_attention_mask`` (lines 243-253: a
cached, compiled ``create_block_mask``); torchtitan/models/llama3/model/model.py,
``get_attention_masks`` (lines 491-512: ``create_attention_mask(and_masks(*mask_mods), B, None,
seq_len, seq_len)`` with ``B = 1`` for the causal type), which the trainer calls before the model's
forward, and ``Attention.forward`` (from line 211: ``self.inner_attention(xq, xk, xv,
block_mask=attention_masks)``). Written here in our own words. Left out or changed: rotary
embeddings, grouped key/value heads and the other attention types; the block mask is built once
when the model is built, for the sequence length the model takes (the trainer's fixed ``seq_len``),
on the CPU and without ``torch.compile``; the wrapper's ``torch.compile`` is given ``disable=True``
(it returns ``flex_attention`` itself: the test needs no compilation). Form kept: the compiled copy
bound in the class body with an annotation and called through the class name, keywords
``block_mask=``, ``scale=`` and ``return_lse=``.
"""

from typing import Callable, ClassVar

import torch
from torch import nn
from torch.nn.attention.flex_attention import and_masks, create_block_mask, flex_attention

SEQ_LEN = 12


def _causal_mask(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def attention_masks(seq_len: int):
    return create_block_mask(and_masks(_causal_mask), 1, None, seq_len, seq_len, device="cpu")


class FlexAttentionWrapper(nn.Module):
    _compiled_flex_attn: ClassVar[Callable] = torch.compile(flex_attention, disable=True)

    def forward(self, q, k, v, *, block_mask, scale=None, return_lse=False):
        return FlexAttentionWrapper._compiled_flex_attn(q, k, v, block_mask=block_mask, scale=scale,
                                                        return_lse=return_lse)


class Attention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.inner_attention = FlexAttentionWrapper()
        self.block_mask = attention_masks(SEQ_LEN)

    def forward(self, x):
        bs, seqlen, _ = x.shape
        xq, xk, xv = (w(x).view(bs, seqlen, self.heads, -1).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        output = self.inner_attention(xq, xk, xv, block_mask=self.block_mask)
        return self.wo(output.transpose(1, 2).contiguous().view(bs, seqlen, -1))


def build() -> nn.Module:
    return Attention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, SEQ_LEN, 16, generator=generator),)


# The block mask is built for SEQ_LEN tokens: the batch varies.
DYNAMIC = {"x": {0: "batch"}}
