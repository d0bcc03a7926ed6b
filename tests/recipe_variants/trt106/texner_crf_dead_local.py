"""tex-ner (offendo/tex-ner @ 05e9798fd93a8577ad674fc1e4c9f062b7892330, ``src/ner/crf.py``, lines 451-641): a copy of
pytorch-crf's ``CRF`` that its owner edited. ``forward`` transposes batch-first inputs to time-major before scoring
(``emissions = emissions.transpose(0, 1)`` when ``self.batch_first``); ``_compute_score`` (lines 554-591) opens
with shape asserts and, in its loop over ``range(1, seq_length)``, binds a step-local ``ts_score`` that it then
grows with ``+=`` and never reads again, next to the two ``score +=`` lines that count; ``_compute_normalizer``
(lines 593-641) is pytorch-crf's forward algorithm, annotated with plain ``torch.Tensor``. Reduced and written here
in our own words: batch-first is fixed on, the reductions, validation and decoding are left out, and the
``mask[0].all()`` assert is dropped (a resized random mask need not start on). TRT106 lifts both loops: the dead local
is bound inside the loop and not read after it, so it is no loop-carried value; the asserts before the loop bind
nothing. A traced export unrolls both loops with the example's length.
"""

import torch
import torch.nn as nn

LIFTED = 2
#: Batch first: the sequence length is the second axis of every input.
DYNAMIC = {"emissions": {1: "T"}, "tags": {1: "T"}, "mask": {1: "T"}}
#: The line TRT106 rewrites (the gold-path loop; the normalizer's loop is written the same way).
CALL = "for i in range(1, seq_length):"


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.end_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))

    def forward(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        emissions = emissions.transpose(0, 1)
        tags = tags.transpose(0, 1)
        mask = mask.transpose(0, 1)
        return self._compute_score(emissions, tags, mask) - self._compute_normalizer(emissions, mask)

    def _compute_score(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        assert emissions.dim() == 3 and tags.dim() == 2
        assert emissions.shape[:2] == tags.shape
        seq_length, batch_size = tags.shape
        mask = mask.float()
        score = self.start_transitions[tags[0]]
        score += emissions[0, torch.arange(batch_size), tags[0]]
        for i in range(1, seq_length):
            # a step's total, computed and left unused
            ts_score = emissions[i, torch.arange(batch_size), tags[i]] * mask[i]
            ts_score += self.transitions[tags[i - 1], tags[i]] * mask[i]
            score += self.transitions[tags[i - 1], tags[i]] * mask[i]
            score += emissions[i, torch.arange(batch_size), tags[i]] * mask[i]
        seq_ends = mask.long().sum(dim=0) - 1
        score += self.end_transitions[tags[seq_ends, torch.arange(batch_size)]]
        return score

    def _compute_normalizer(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        assert emissions.dim() == 3 and mask.dim() == 2
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            next_score = score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1)
            next_score = torch.logsumexp(next_score, dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
        score += self.end_transitions
        return torch.logsumexp(score, dim=1)


def build() -> nn.Module:
    return CRF(5)


def inputs(generator: torch.Generator, length: int = 4) -> tuple:
    emissions = torch.randn(3, length, 5, generator=generator)
    tags = torch.randint(0, 5, (3, length), generator=generator)
    mask = torch.ones(3, length, dtype=torch.bool)
    mask[1, length // 2 + 1:] = False
    return emissions, tags, mask
