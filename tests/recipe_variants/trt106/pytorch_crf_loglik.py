"""pytorch-crf 0.7.2 (kmkurn/pytorch-crf, ``torchcrf/__init__.py``): the log-likelihood of a time-major linear-chain CRF.
``_compute_score`` sums the gold path's transitions and emissions in ``for i in range(1, seq_length)`` with
``seq_length, batch_size = tags.shape`` (line 189 of the released wheel) and ``_compute_normalizer`` runs the
forward algorithm, ``score = torch.where(mask[i].unsqueeze(1), logsumexp(...), score)`` over ``range(1,
emissions.size(0))`` (line 225). Zoo 43's ``crf_charcnn_loglik`` found both as "(unrolled loop)". Reduced and written
here in our own words: the validation, reductions and decoding are left out; the annotations (``torch.LongTensor``,
``torch.ByteTensor``), the in-place ``+=`` and the uint8 mask in ``torch.where`` are kept. TRT106 lifts both loops.
"""

import torch
from torch import nn

LIFTED = 2


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.end_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))

    def forward(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self._compute_score(emissions, tags, mask) - self._compute_normalizer(emissions, mask)

    def _compute_score(self, emissions: torch.Tensor, tags: torch.LongTensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length, batch_size = tags.shape
        mask = mask.float()
        score = self.start_transitions[tags[0]]
        score += emissions[0, torch.arange(batch_size), tags[0]]
        for i in range(1, seq_length):
            # the gold transition and emission, counted only where step i is inside the sentence
            score += self.transitions[tags[i - 1], tags[i]] * mask[i]
            score += emissions[i, torch.arange(batch_size), tags[i]] * mask[i]
        ends = mask.long().sum(dim=0) - 1
        score += self.end_transitions[tags[ends, torch.arange(batch_size)]]
        return score

    def _compute_normalizer(self, emissions: torch.Tensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emissions = emissions[i].unsqueeze(1)
            next_score = torch.logsumexp(broadcast_score + self.transitions + broadcast_emissions, dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
        score += self.end_transitions
        return torch.logsumexp(score, dim=1)


def build() -> nn.Module:
    return CRF(5)


def inputs(length: int) -> tuple:
    g = torch.Generator().manual_seed(length)
    tags = torch.randint(0, 5, (length, 3), generator=g)
    mask = torch.ones(length, 3, dtype=torch.uint8)
    mask[length // 2 + 1:, 0] = 0
    return torch.randn(length, 3, 5, generator=g), tags, mask
