"""A sum of reshaped comparisons as a logical or: a relation classifier pools the words outside both entities.

Reduced from ZhengTang1120/tacred_tagging @ 54eac22b6245793b524c2acdc63bfe2291eb8b59, bert.py:
``BERTclassifier.forward`` (lines 34-40) marks the subject and object tokens with
``subj_mask, obj_mask = subj_pos.eq(1000).unsqueeze(2), obj_pos.eq(1000).unsqueeze(2)`` (line 35), then
``out_mask = masks.unsqueeze(2).eq(0) + subj_mask + obj_mask`` (line 38) and max-pools the encoder's
states where ``out_mask.eq(0)`` (``pool``, ``h.masked_fill(mask, -constant.INFINITY_NUMBER)``) before the
classifier. Written here in our own words, an embedding standing in for the encoder.
"""

import torch
from torch import nn

NEG = -1e12


class SpanPool(nn.Module):
    def __init__(self, vocab: int = 20, dim: int = 6, classes: int = 3) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.classifier = nn.Linear(dim, classes)

    def forward(self, words, masks, subj_pos, obj_pos):
        h = self.embed(words)
        subj_mask, obj_mask = subj_pos.eq(1000).unsqueeze(2), obj_pos.eq(1000).unsqueeze(2)
        out_mask = masks.unsqueeze(2).eq(0) + subj_mask + obj_mask
        pooled = h.masked_fill(out_mask.eq(0), NEG).max(1)[0]
        return self.classifier(pooled)


def build() -> nn.Module:
    return SpanPool()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    words = torch.randint(0, 20, (2, 7), generator=generator)
    masks = (torch.rand(2, 7, generator=generator) > 0.2).long()
    subj_pos = torch.where(torch.rand(2, 7, generator=generator) > 0.7, 1000, 3)
    obj_pos = torch.where(torch.rand(2, 7, generator=generator) > 0.7, 1000, -2)
    return words, masks, subj_pos, obj_pos


DYNAMIC = {"words": {0: "batch", 1: "seq"}, "masks": {0: "batch", 1: "seq"},
           "subj_pos": {0: "batch", 1: "seq"}, "obj_pos": {0: "batch", 1: "seq"}}
