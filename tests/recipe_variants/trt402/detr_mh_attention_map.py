"""DETR's attention map for the mask head: ``weight.unsqueeze(-1).unsqueeze(-1)``, ``mask.unsqueeze(1).unsqueeze(1)``.

Reduced from facebookresearch/detr at commit 29901c51d7fe8712168b8d0d64351170bc0f83e0,
models/segmentation.py, ``MHAttentionMap.forward`` (lines 158-169): the keys are projected by a
1x1 convolution whose kernel is the key projection's weight with two trailing axes added in a chain
passed as an argument (``self.k_linear.weight.unsqueeze(-1).unsqueeze(-1)``, line 160); queries and
keys are split into heads, multiplied with ``einsum``, and the padded pixels are filled with -inf
through the padding mask given two axes in a chain (``mask.unsqueeze(1).unsqueeze(1)``, line 165)
before a softmax over every head's pixels. Written here in our own words; the dropout (an identity
in eval mode) is left out and the mask is always given.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MHAttentionMap(nn.Module):
    def __init__(self, query_dim: int = 8, hidden_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.hidden_dim = hidden_dim
        self.q_linear = nn.Linear(query_dim, hidden_dim)
        self.k_linear = nn.Linear(query_dim, hidden_dim)
        self.normalize_fact = float(hidden_dim / num_heads) ** -0.5

    def forward(self, q, k, mask):
        q = self.q_linear(q)
        k = F.conv2d(k, self.k_linear.weight.unsqueeze(-1).unsqueeze(-1), self.k_linear.bias)
        qh = q.view(q.shape[0], q.shape[1], self.num_heads, self.hidden_dim // self.num_heads)
        kh = k.view(k.shape[0], self.num_heads, self.hidden_dim // self.num_heads, k.shape[-2], k.shape[-1])
        weights = torch.einsum("bqnc,bnchw->bqnhw", qh * self.normalize_fact, kh)
        weights.masked_fill_(mask.unsqueeze(1).unsqueeze(1), float("-inf"))
        return F.softmax(weights.flatten(2), dim=-1).view(weights.size())


def build() -> nn.Module:
    return MHAttentionMap()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator), torch.randn(2, 8, 3, 4, generator=generator),
            torch.rand(2, 3, 4, generator=generator) > 0.7)


DYNAMIC = {"q": {0: "batch", 1: "queries"}, "k": {0: "batch", 2: "height", 3: "width"},
           "mask": {0: "batch", 1: "height", 2: "width"}}
