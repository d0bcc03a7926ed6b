"""DETR's object queries repeated over the batch: ``query_embed.unsqueeze(1).repeat(1, bs, 1)``.

Reduced from facebookresearch/detr at commit 29901c51d7fe8712168b8d0d64351170bc0f83e0,
models/transformer.py, ``Transformer.forward`` (lines 46-57): the feature map is flattened to
``(HW, N, C)``, the learned query embedding ``(num_queries, C)`` gets a batch axis at position 1 and
is repeated ``bs`` times along it (line 52), and the decoder starts from zeros shaped like it.
Written here in our own words with one dot-product attention of the queries over the flattened map
in place of the encoder and decoder stacks. The new axis is the second (``unsqueeze(1)``): the rule
took only ``unsqueeze(0)`` and negative axes before.
"""

import torch
from torch import nn


class QueryTransformer(nn.Module):
    def __init__(self, num_queries: int = 5, d_model: int = 8) -> None:
        super().__init__()
        self.query_embed = nn.Embedding(num_queries, d_model)

    def forward(self, src, pos_embed):
        bs, c, h, w = src.shape
        src = src.flatten(2).permute(2, 0, 1)
        pos_embed = pos_embed.flatten(2).permute(2, 0, 1)
        query_embed = self.query_embed.weight.unsqueeze(1).repeat(1, bs, 1)
        tgt = torch.zeros_like(query_embed)
        memory = src + pos_embed
        attn = torch.einsum("qbc,kbc->bqk", tgt + query_embed, memory).softmax(-1)
        return torch.einsum("bqk,kbc->bqc", attn, src)


def build() -> nn.Module:
    return QueryTransformer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 3, 4, generator=generator), torch.randn(2, 8, 3, 4, generator=generator))


DYNAMIC = {"src": {0: "batch", 2: "height", 3: "width"}, "pos_embed": {0: "batch", 2: "height", 3: "width"}}
