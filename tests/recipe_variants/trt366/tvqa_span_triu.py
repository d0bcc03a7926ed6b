"""Span scores for every (start, end) pair with end >= start: each example's outer product kept upper triangular.

Reduced from jayleicn/TVQAplus @ d2dc7211732cfd31fe1a5416432003551b63f5df, model/model_utils.py:103
(``find_max_triples``: ``product = torch.bmm(p1.unsqueeze(2), p2.unsqueeze(1))``, then
``torch.stack([torch.triu(p) for p in product])`` over the batch, the stack written across two lines),
in our own words: softmaxed start and end logits in, the masked products out.
"""

import torch
from torch import nn

DYNAMIC = {"start": {0: "batch"}, "end": {0: "batch"}}


class SpanScores(nn.Module):
    def forward(self, start, end):
        product = torch.bmm(start.softmax(-1).unsqueeze(2), end.softmax(-1).unsqueeze(1))
        upper = torch.stack([torch.triu(p) for p in product]
                            )
        return upper


def build() -> nn.Module:
    return SpanScores()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, generator=generator), torch.randn(2, 7, generator=generator))
