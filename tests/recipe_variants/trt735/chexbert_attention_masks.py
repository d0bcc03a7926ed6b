"""CheXbert labels radiology reports with BERT; its batches are padded token ids, and the attention mask is
built from the reports' lengths by enumerating them: ``masks = torch.ones(batch.size(0), batch.size(1));
for idx, src_len in enumerate(source_lengths): masks[idx, src_len:] = 0``. The same row-by-row fill as a
``range`` loop, spelt with ``enumerate`` and the length read from the loop's value instead of an index.

Reduced from stanfordmlgroup/CheXbert @ 3ab882dbb14dd365ba0e122cc85b1ce592f20c60, src/utils.py,
``generate_attention_masks`` (lines 91-104), as src/label.py (line 91) passes the mask to the model with the
padded batch. Written here in our own words: the lengths are a tensor input instead of a Python list, the
``.to(device)`` is dropped, and BERT is one embedding and one self-attention head whose scores the mask
excludes additively (as BERT's extended attention mask does), with a linear head on the first token.

Why it matters for export: a trace unrolls the loop over the example's lengths, so the exported model masks
the example's padding whatever lengths (and batch) it is given.
"""

import torch
from torch import nn


def generate_attention_masks(batch, source_lengths):
    masks = torch.ones(batch.size(0), batch.size(1), dtype=torch.float)
    for idx, src_len in enumerate(source_lengths):
        masks[idx, src_len:] = 0
    return masks


class Labeler(nn.Module):
    def __init__(self, vocabulary: int = 20, features: int = 8, conditions: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocabulary, features)
        self.query = nn.Linear(features, features)
        self.key = nn.Linear(features, features)
        self.head = nn.Linear(features, conditions)

    def forward(self, batch, source_lengths):
        attn_mask = generate_attention_masks(batch, source_lengths)
        hidden = self.embed(batch)
        scores = self.query(hidden) @ self.key(hidden).transpose(1, 2) / hidden.size(-1) ** 0.5
        scores = scores + (1.0 - attn_mask[:, None, :]) * -10000.0
        attended = torch.softmax(scores, dim=-1) @ hidden
        return self.head(attended[:, 0])


def build() -> nn.Module:
    return Labeler()


def inputs(generator: torch.Generator, batch: int = 3, time: int = 7) -> tuple[torch.Tensor, ...]:
    lengths = torch.randint(1, time + 1, (batch,), generator=generator)
    return torch.randint(0, 20, (batch, time), generator=generator), lengths


DYNAMIC = {"batch": {0: "batch", 1: "time"}, "source_lengths": {0: "batch"}}
CALL = "for idx, src_len in enumerate(source_lengths):"
