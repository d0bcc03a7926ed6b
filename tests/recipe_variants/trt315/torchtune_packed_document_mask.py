"""torchtune's packed-sequence attention: a block-causal document mask, called through a compiled copy.

Reduced from pytorch/torchtune at commit 130369504a2656b3c955814d6385d4c8915ad8c0,
torchtune/modules/attention_utils.py: ``compile_flex_attention`` (lines 25-42: returns
``torch.compile(flex_attention, dynamic=False)``, retried with ``mode="max-autotune"``), the
module-level ``flex_attention_compiled = compile_flex_attention()`` (line 44),
``compile_friendly_flex_attention`` (lines 50-57: ``flex_attention_compiled(q, k, v,
block_mask=block_mask)``), ``_get_document_ids_from_seq_lens`` (from line 64) and
``packed_block_causal_mask`` (further down: ``mask_mod`` is ``q_idx >= kv_idx`` and
``document_ids[b, q_idx] == document_ids[b, kv_idx]``, turned into a block mask for the pack).
Written here in our own words. The pack's sequence lengths are fixed when the model is built
(torchtune takes them from the batch; a block mask built in ``forward`` stops the TorchScript trace
at ``create_block_mask`` before the call), the block mask is built on the CPU (torchtune moves
the document ids to ``"cuda"``), and the ``torch.compile`` call is left out of
``compile_flex_attention`` (it returns ``flex_attention`` itself, so the test needs no inductor
build): the form kept is the binding through a function's return value and the call through that
name.
"""

import torch
from torch import nn
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

PACKS = [[3, 4, 2], [5, 4]]  # the sequence lengths packed into each row of the batch


def compile_flex_attention():
    return flex_attention


flex_attention_compiled = compile_flex_attention()


def compile_friendly_flex_attention(q, k, v, block_mask):
    return flex_attention_compiled(q, k, v, block_mask=block_mask)


def document_ids_of(packs):
    rows = [torch.cat([torch.full((length,), i, dtype=torch.long) for i, length in enumerate(pack)])
            for pack in packs]
    return torch.stack(rows)


def packed_block_causal_mask(packs):
    document_ids = document_ids_of(packs)
    batch, length = document_ids.shape

    def mask_mod(b, h, q_idx, kv_idx):
        causal = q_idx >= kv_idx
        same_document = document_ids[b, q_idx] == document_ids[b, kv_idx]
        return causal & same_document

    return create_block_mask(mask_mod, batch, None, length, length, device="cpu")


class PackedSelfAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.mask = packed_block_causal_mask(PACKS)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = (proj(x).view(b, n, self.heads, -1).transpose(1, 2) for proj in (self.q, self.k, self.v))
        out = compile_friendly_flex_attention(q, k, v, block_mask=self.mask)
        return self.out(out.transpose(1, 2).reshape(b, n, d))


def build() -> nn.Module:
    return PackedSelfAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(len(PACKS), sum(PACKS[0]), 16, generator=generator),)


DYNAMIC = {}
