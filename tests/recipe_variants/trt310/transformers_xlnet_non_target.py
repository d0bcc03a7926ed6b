"""XLNet's non-target attention mask: ``-torch.eye(qlen, dtype=attn_mask.dtype)`` added to the padding mask.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/xlnet/modeling_xlnet.py,
``XLNetModel.forward`` (lines 1060-1112): the padding mask ``1 - attention_mask`` as a float
``(qlen, qlen, bsz, 1)`` mask, then ``non_tgt_mask = -torch.eye(qlen, device=attn_mask.device,
dtype=attn_mask.dtype)`` (the size of the query axis, the dtype of another tensor, negated) and
``((attn_mask + non_tgt_mask[:, :, None, None]) > 0).to(attn_mask)``: every token may see itself.
Written here in our own words as a module over the attention mask (no memory, no perm mask).
"""

import torch
from torch import nn


class NonTargetMask(nn.Module):
    def forward(self, attention_mask):
        input_mask = 1.0 - attention_mask.transpose(0, 1).contiguous().to(torch.float32)
        qlen = input_mask.shape[0]
        data_mask = input_mask[None]
        attn_mask = data_mask[:, :, :, None]
        attn_mask = (attn_mask > 0).to(torch.float32)
        non_tgt_mask = -torch.eye(qlen, device=attn_mask.device, dtype=attn_mask.dtype)
        return ((attn_mask + non_tgt_mask[:, :, None, None]) > 0).to(attn_mask)


def build() -> nn.Module:
    return NonTargetMask()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]),)


DYNAMIC = {"attention_mask": {0: "batch", 1: "tokens"}}
