"""kijai's ComfyUI-LuminaWrapper (ComfyUI nodes around Lumina-Next): its own copy of the NextDiT attention
keeps the proportional scale, ``softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) /
self.head_dim)`` after ``bsz, seqlen, _ = x.shape``, and passes it to ``F.scaled_dot_product_attention``
when flash attention is not used; beside it, the caption cross-attention is a second SDPA call with
the default scale, gated by ``tanh`` of a learned per-head gate.

Reduced from kijai/ComfyUI-LuminaWrapper @ 1086e2894af742c7a70f573aababc749816e9e3e,
lumina_models/nextdit.py, ``Attention.forward`` (lines 296-431; the size at line 317, the scale at
lines 333-336, the self-attention call at lines 372-381, the caption attention's plain arm at lines 413-427). Kept:
the projections and per-head views, the proportional/plain arms, the self-attention with the padding
mask expanded over heads, and the caption attention added through the gate, then the output
projection. Reduced: one key/value head per query head (no repetition), no q/k norms, no rotary step,
no flash-attention branch, and of the caption attention only the arm for three or more samples (no
regional mask, no summing of the conditional rows). Written here in our own words.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class WrapperAttention(nn.Module):
    def __init__(self, dim: int = 16, n_heads: int = 2, caption_dim: int = 8, base_seqlen: int = 9) -> None:
        super().__init__()
        self.n_local_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.wk_y = nn.Linear(caption_dim, dim, bias=False)
        self.wv_y = nn.Linear(caption_dim, dim, bias=False)
        self.gate = nn.Parameter(torch.linspace(-1.0, 1.0, n_heads))
        self.proportional_attn = True
        self.base_seqlen = base_seqlen

    def forward(self, x, x_mask, y, y_mask):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, self.n_local_heads, self.head_dim)

        if self.proportional_attn:
            softmax_scale = math.sqrt(math.log(seqlen, self.base_seqlen) / self.head_dim)
        else:
            softmax_scale = math.sqrt(1 / self.head_dim)

        output = F.scaled_dot_product_attention(
            xq.permute(0, 2, 1, 3),
            xk.permute(0, 2, 1, 3),
            xv.permute(0, 2, 1, 3),
            attn_mask=x_mask.bool().view(bsz, 1, 1, seqlen).expand(-1, self.n_local_heads, seqlen, -1),
            scale=softmax_scale,
        ).permute(0, 2, 1, 3)

        yk = self.wk_y(y).view(bsz, -1, self.n_local_heads, self.head_dim)
        yv = self.wv_y(y).view(bsz, -1, self.n_local_heads, self.head_dim)
        output_y = F.scaled_dot_product_attention(
            xq.permute(0, 2, 1, 3),
            yk.permute(0, 2, 1, 3),
            yv.permute(0, 2, 1, 3),
            y_mask.bool().view(bsz, 1, 1, -1).expand(bsz, self.n_local_heads, seqlen, -1),
        ).permute(0, 2, 1, 3)
        output = output + output_y * self.gate.tanh().view(1, 1, -1, 1)
        return self.wo(output.flatten(-2))


def build() -> nn.Module:
    return WrapperAttention()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 10, words: int = 4) -> tuple[torch.Tensor, ...]:
    x = torch.randn(batch, tokens, 16, generator=generator)
    y = torch.randn(batch, words, 8, generator=generator)
    x_mask = torch.arange(tokens)[None, :] < torch.randint(1, tokens + 1, (batch, 1), generator=generator)
    y_mask = torch.arange(words)[None, :] < torch.randint(1, words + 1, (batch, 1), generator=generator)
    return x, x_mask.to(torch.int64), y, y_mask.to(torch.int64)


DYNAMIC = {"x": {0: "batch", 1: "tokens"}, "x_mask": {0: "batch", 1: "tokens"},
           "y": {0: "batch", 1: "words"}, "y_mask": {0: "batch", 1: "words"}}
