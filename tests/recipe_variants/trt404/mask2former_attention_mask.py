"""Mask2Former's masked attention: predicted masks widened to every head with ``unsqueeze(1).repeat``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/mask2former/
modeling_mask2former.py, ``Mask2FormerMaskPredictor.forward`` (lines 2046-2062; the same in
OneFormer): the mask logits per query are resized to the attention's feature size, and
``attention_mask.sigmoid().flatten(2).unsqueeze(1).repeat(1, self.num_heads, 1, 1)`` (line 2058)
is flattened over batch and heads and thresholded (``< 0.5``) into the boolean mask of the next
decoder layer. Written here in our own words from the mask embeddings on (the MLP head is one
linear layer). The new axis is the second: not taken before.
"""

import torch
from torch import nn


class MaskPredictor(nn.Module):
    def __init__(self, hidden_size: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.num_heads = num_heads
        self.mask_embedder = nn.Linear(hidden_size, hidden_size)

    def forward(self, outputs, pixel_embeddings):
        mask_embeddings = self.mask_embedder(outputs.transpose(0, 1))
        outputs_mask = torch.einsum("bqc, bchw -> bqhw", mask_embeddings, pixel_embeddings)
        attention_mask = nn.functional.interpolate(outputs_mask, scale_factor=0.5, mode="bilinear", align_corners=False)
        attention_mask = attention_mask.sigmoid().flatten(2).unsqueeze(1).repeat(1, self.num_heads, 1, 1)
        attention_mask = (attention_mask.flatten(0, 1) < 0.5).bool()
        return attention_mask.detach()


def build() -> nn.Module:
    return MaskPredictor()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 2, 8, generator=generator), torch.randn(2, 8, 4, 6, generator=generator))


DYNAMIC = {"outputs": {0: "queries", 1: "batch"}, "pixel_embeddings": {0: "batch", 2: "height", 3: "width"}}
