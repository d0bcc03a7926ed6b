"""REx (Spico197/REx at 1273b31d44dc7addf403ab6d277419a3af8001e3, ``rex/modules/crf.py``): two CRFs of its own, adapted
from pytorch-crf. ``PlainCRF._compute_normalizer`` makes the mask a condition with ``mask[i].unsqueeze(1).bool()``,
and ``MaskedCRF._compute_normalizer`` takes the masked ``transitions`` as an unannotated argument (``forward`` computes
them with ``torch.min`` against a constraint mask and passes them in). Reduced and written here in our own words
(one class holding both forms). TRT106 lifts neither: TorchScript has no ``Tensor.bool()`` (the rule compiles the
lifted function and it fails), and nothing in the code shows ``transitions`` a tensor (the rule's view is static).
"""

import torch
from torch import nn

LIFTED = 0


class CRF(nn.Module):
    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self.start_transitions = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))
        self.register_buffer("allowed", torch.full((num_tags, num_tags), 100.0))

    def forward(self, emissions: torch.Tensor, tags: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        masked = torch.min(self.transitions, self.allowed)
        return self._plain_normalizer(emissions, mask) + self._masked_normalizer(masked, emissions, mask)

    def _plain_normalizer(self, emissions: torch.Tensor, mask: torch.LongTensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            next_score = torch.logsumexp(score.unsqueeze(2) + self.transitions + emissions[i].unsqueeze(1), dim=1)
            score = torch.where(mask[i].unsqueeze(1).bool(), next_score, score)
        return torch.logsumexp(score, dim=1)

    def _masked_normalizer(self, transitions, emissions: torch.Tensor, mask: torch.ByteTensor) -> torch.Tensor:
        seq_length = emissions.size(0)
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            next_score = torch.logsumexp(score.unsqueeze(2) + transitions + emissions[i].unsqueeze(1), dim=1)
            score = torch.where(mask[i].unsqueeze(1).bool(), next_score, score)
        return torch.logsumexp(score, dim=1)


def build() -> nn.Module:
    return CRF(4)


def inputs(length: int) -> tuple:
    g = torch.Generator().manual_seed(length)
    mask = torch.ones(length, 2, dtype=torch.long)
    mask[length // 2 + 1:, 1] = 0
    return torch.randn(length, 2, 4, generator=g), torch.zeros(length, 2, dtype=torch.long), mask
