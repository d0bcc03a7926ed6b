"""ark-nlp (xiangking/ark-nlp at 3ae05c79471109b0e356aab395cd798e74ce49a6, ``ark_nlp/nn/layer/crf_block.py``): a CRF
block whose ``_compute_normalizer`` is pytorch-crf's forward algorithm (no asserts, a uint8 mask it makes with
``mask.byte()``), and whose batched ``_viterbi_decode`` keeps the back-pointers in a preallocated tensor,
``history_idx[i - 1] = indices``, instead of a Python list. Reduced and written here in our own words: the normalizer
and the Viterbi forward pass (its best final score, in ``decode``; the back-tracking left out). TRT106 lifts the normalizer; it
leaves the Viterbi loop, whose body writes into a tensor (an indexed assignment, not a local).
"""

import torch
from torch import nn

LIFTED = 1


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.num_tags = num_tags
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))

    def forward(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self._compute_normalizer(emissions, mask.byte())

    def decode(self, emissions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self._viterbi_best(emissions, mask.byte())

    def _compute_normalizer(self, emissions: torch.Tensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            next_score = score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1)
            next_score = torch.logsumexp(next_score, dim=1)
            score = torch.where(mask[i].unsqueeze(1), next_score, score)
        return torch.logsumexp(score, dim=1)

    def _viterbi_best(self, emissions: torch.Tensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length, batch_size = mask.shape
        score = self.start_transitions + emissions[0]
        history_idx = torch.zeros((seq_length, batch_size, self.num_tags), dtype=torch.long)
        for i in range(1, seq_length):
            next_score, indices = (score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1)).max(dim=1)
            score = torch.where(mask[i].unsqueeze(-1), next_score, score)
            history_idx[i - 1] = indices
        return score.max(dim=1)[0]


def build() -> nn.Module:
    return CRF(5)


def inputs(length: int) -> tuple:
    g = torch.Generator().manual_seed(length)
    mask = torch.ones(length, 3, dtype=torch.bool)
    mask[length // 2 + 1:, 2] = False
    return torch.randn(length, 3, 5, generator=g), torch.zeros(length, 3, dtype=torch.long), mask
