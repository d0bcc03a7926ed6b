"""gflownet's Scrabble environment draws words uniformly: random letters for every position up to the longest
word, then each word cut to its sampled length by zeroing (the padding letter) the positions past it, enumerating
the lengths tensor: ``for idx, length in enumerate(lengths): samples[idx, length:] = 0``.

Reduced from alexhernandezgarcia/gflownet @ d01a4c07d2675d68318a2bb4ac0ca6c68cb1c3c1, gflownet/envs/scrabble.py,
``Scrabble.get_uniform_terminating_states`` (lines 323-347). Written here in our own words: the letters and the
lengths are inputs instead of draws (``torch.randint`` and a ``Categorical``), the words stay a tensor instead of
``.tolist()``, and a proxy scores each word as the sum of its letters' values (an embedding with the padding
letter at zero), as the environment's Scrabble proxy does with a table.

Why it matters for export: a trace unrolls the loop over the example's lengths tensor and bakes every length,
so the exported scorer cuts every batch's words at the example's lengths.
"""

import torch
from torch import nn


def cut_words(letters, lengths):
    samples = letters.clone()
    for idx, length in enumerate(lengths):
        samples[idx, length:] = 0
    return samples


class WordScore(nn.Module):
    def __init__(self, letters: int = 26) -> None:
        super().__init__()
        self.value = nn.Embedding(letters + 1, 1, padding_idx=0)

    def forward(self, letters, lengths):
        words = cut_words(letters, lengths)
        score = self.value(words).squeeze(-1).sum(1)
        return torch.cat([score[:, None], words.to(score.dtype)], 1)  # each word's score, then its letters


def build() -> nn.Module:
    return WordScore()


def inputs(generator: torch.Generator, batch: int = 4, time: int = 7) -> tuple[torch.Tensor, ...]:
    lengths = torch.randint(1, time + 1, (batch,), generator=generator)
    return torch.randint(1, 27, (batch, time), generator=generator), lengths


DYNAMIC = {"letters": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}
CALL = "for idx, length in enumerate(lengths):"
