"""TorchCRF (s14t284/TorchCRF @ 542c921cff464c245b4fb04aaf22f725a90cc178, ``TorchCRF/__init__.py``, lines 132-179,
``CRF._compute_denominator_log_likelihood``; also released on PyPI as ``TorchCRF``): a batch-first CRF written apart
from pytorch-crf. Its forward algorithm runs over the second axis, ``for t in range(1, seq_len)`` with ``batch_size,
seq_len, _ = h.size()`` (an unpacking of ``size()``, not of ``shape``), reads the step as ``h[:, t]`` and
``mask[:, t]``, moves the step's mask to ``device = h.device`` inside the loop (``mask_t = mask_t.to(device)``),
adds a local ``trans = self.trans_matrix.unsqueeze(0)`` bound before the loop, and annotates its arguments with the
bare ``FloatTensor`` and ``BoolTensor`` it imports from torch (line 5). Each of these once kept TRT106 from lifting
it; the rule now reads them (the bare types only where the file imports them from torch, the device as a
``torch.device`` parameter). Reduced and written here in our own words: the normalizer only (the numerator sums a
list comprehension over ``range(seq_len - 1)``, a form TRT106 does not take, and is left out, as are Viterbi decoding
and the GPU flag); the parameters are drawn from a seeded uniform range in place of the library's initialisation.
A traced export unrolls the loop with the example's length: the graph then misses every other length.
"""

import torch
import torch.nn as nn
from torch import BoolTensor, FloatTensor

LIFTED = 1
#: The dynamic axis a deploying user declares: the sequence length, the second axis (batch first).
DYNAMIC = {"h": {1: "T"}, "labels": {1: "T"}, "mask": {1: "T"}}
#: The line TRT106 rewrites.
CALL = "for t in range(1, seq_len):"


class CRF(nn.Module):
    def __init__(self, num_labels: int) -> None:
        super().__init__()
        self.num_labels = num_labels
        self.trans_matrix = nn.Parameter(torch.empty(num_labels, num_labels).uniform_(-0.1, 0.1))
        self.start_trans = nn.Parameter(torch.empty(num_labels).uniform_(-0.1, 0.1))
        self.end_trans = nn.Parameter(torch.empty(num_labels).uniform_(-0.1, 0.1))

    def forward(self, h: FloatTensor, labels: torch.Tensor, mask: BoolTensor) -> torch.Tensor:
        return self._compute_denominator_log_likelihood(h, mask)

    def _compute_denominator_log_likelihood(self, h: FloatTensor, mask: BoolTensor):
        device = h.device
        batch_size, seq_len, _ = h.size()
        # the transitions with a leading batch axis: (1, from, to)
        trans = self.trans_matrix.unsqueeze(0)
        score = self.start_trans + h[:, 0]
        for t in range(1, seq_len):
            before_score = score.unsqueeze(2)
            mask_t = mask[:, t].unsqueeze(1)
            mask_t = mask_t.to(device)
            h_t = h[:, t].unsqueeze(1)
            score_t = torch.logsumexp(before_score + h_t + trans, 1)
            # a step past the end of a sentence keeps the score it had
            score = torch.where(mask_t, score_t, score)
        score += self.end_trans
        return torch.logsumexp(score, 1)


def build() -> nn.Module:
    return CRF(5)


def inputs(generator: torch.Generator, length: int = 4) -> tuple:
    h = torch.randn(3, length, 5, generator=generator)
    labels = torch.randint(0, 5, (3, length), generator=generator)
    mask = torch.ones(3, length, dtype=torch.bool)
    mask[2, length // 2 + 1:] = False  # a shorter sentence in the batch
    return h, labels, mask
