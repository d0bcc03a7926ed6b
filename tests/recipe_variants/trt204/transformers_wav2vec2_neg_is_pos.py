"""Hugging Face's wav2vec 2.0 pre-training head: a negative sample identical to the positive one
gets the contrastive logit -inf, written through a mask into a slice of the logits
(``logits[1:][neg_is_pos] = float("-inf")``: the target is itself an indexed view).

Reduced from huggingface/transformers at v5.24.0 (the PyPI release the second zoo unpacks),
src/transformers/models/wav2vec2/modeling_wav2vec2.py:1476-1492
(``Wav2Vec2ForPreTraining.forward``: the cosine logits of the positive and negatives,
``neg_is_pos = (quantized_features == negative_quantized_features).all(-1)`` and the fill under
``if neg_is_pos.any():``), written here in our own words; the ``if`` is left out (the fill of an
all-false mask changes nothing).

Not rewritten: TRT204 reports the line and leaves it. The TorchScript exporter keeps a write
through an indexed view only when the view and the write are one expression, which a helper
call would split; the rewrite is left to the author (``torch.where`` over the whole logits).
"""

import torch
from torch import nn


class ContrastiveLogits(nn.Module):
    def forward(self, positive: torch.Tensor, negatives: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        targets = torch.cat([positive[None], negatives], dim=0)
        logits = torch.cosine_similarity(context[None], targets, dim=-1) / 0.1
        neg_is_pos = (positive == negatives).all(-1)
        logits[1:][neg_is_pos] = float("-inf")
        return logits


def build() -> nn.Module:
    return ContrastiveLogits()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    positive = torch.randn(2, 3, 4, generator=generator)
    others = torch.randn(2, 2, 3, 4, generator=generator)
    negatives = torch.cat([others[:1], positive[None], others[1:]])  # the second negative is the positive
    return positive, negatives, torch.randn(2, 3, 4, generator=generator)


DYNAMIC = {"positive": {1: "frames"}, "negatives": {2: "frames"}, "context": {1: "frames"}}
