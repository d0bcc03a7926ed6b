"""torchtune's last unmasked token, as a maintainer's branch computes it for a reward model's
pooling: ``(~mask).cumsum(dim=-1).argmax(dim=-1)`` on the bool padding mask (the first position
where the count of real tokens reaches its maximum is the last real token), clipped to the
sequence, and the score read at that token.

Reduced from SalmanMohammadi/torchtune, commit 3520d181a282124641b12018951bc2392234f317,
torchtune/training/pooling.py, ``get_unmasked_sequence_lengths`` (the cumsum on the line after the
comment "calculate per-batch-element sequence lengths"). Written here in our own words, with the
pooling of a reward head: a score per token from a small embedding and linear layer, the padding
mask from the tokens, and each sequence's score at its last real token.
"""

import torch
from torch import nn


def get_unmasked_sequence_lengths(mask: torch.Tensor) -> torch.Tensor:
    sequence_lengths = (~mask).cumsum(dim=-1).argmax(dim=-1).to(dtype=torch.long)
    return sequence_lengths.clip(0, mask.shape[1] - 1)


class RewardHead(nn.Module):
    def __init__(self, vocab: int = 40, hidden: int = 16, padding_idx: int = 0) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.tokens = nn.Embedding(vocab, hidden)
        self.score = nn.Linear(hidden, 1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        scores = self.score(torch.tanh(self.tokens(tokens))).squeeze(-1)
        lengths = get_unmasked_sequence_lengths(tokens == self.padding_idx)
        return scores.gather(1, lengths.unsqueeze(1)).squeeze(1)


def build() -> nn.Module:
    return RewardHead()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    tokens = torch.randint(1, 40, (3, 9), generator=generator)
    tokens[0, 5:] = 0
    tokens[1, 2:] = 0
    return (tokens,)


DYNAMIC = {"tokens": {0: "batch", 1: "length"}}
