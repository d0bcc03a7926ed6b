"""Grounding DINO's image-text fusion: a text padding mask widened to every head, ``[:, None, None, :]``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/grounding_dino/
modeling_grounding_dino.py, ``GroundingDinoBiMultiHeadAttention.forward`` (lines 746-840; the same
in MM Grounding DINO): the vision-to-text attention weights are ``(batch * heads, vision, text)``,
and the text padding mask becomes
``text_attention_mask[:, None, None, :].repeat(1, self.num_heads, 1, 1).flatten(0, 1)``
(line 830), filled into the weights as ``-inf`` before the softmax. Written here in our own words
with single projections of each side; the vision-side mask (line 822, the same form) and the
clamps are left out. Two new axes, one of them repeated: the rule took neither before.
"""

import torch
from torch import nn


class TextMaskedAttention(nn.Module):
    def __init__(self, embed_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.vision_proj = nn.Linear(embed_dim, embed_dim)
        self.text_proj = nn.Linear(embed_dim, embed_dim)

    def _heads(self, tensor, batch_size):
        return tensor.view(batch_size, -1, self.num_heads, self.head_dim).transpose(1, 2).flatten(0, 1)

    def forward(self, vision_features, text_features, text_attention_mask):
        batch_size = vision_features.shape[0]
        query = self._heads(self.vision_proj(vision_features), batch_size)
        key = self._heads(self.text_proj(text_features), batch_size)
        attn_weights = torch.bmm(query, key.transpose(1, 2))
        text_attention_mask = text_attention_mask[:, None, None, :].repeat(1, self.num_heads, 1, 1).flatten(0, 1)
        attn_weights.masked_fill_(text_attention_mask, float("-inf"))
        return attn_weights.softmax(dim=-1)


def build() -> nn.Module:
    return TextMaskedAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 8, generator=generator), torch.randn(2, 4, 8, generator=generator),
            torch.tensor([[False, False, True, True], [False, False, False, True]]))


DYNAMIC = {"vision_features": {0: "batch", 1: "vision"}, "text_features": {0: "batch", 1: "text"},
           "text_attention_mask": {0: "batch", 1: "text"}}
