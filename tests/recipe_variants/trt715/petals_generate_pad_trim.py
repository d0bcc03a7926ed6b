"""Petals' remote generation: before the first step, the columns that every prompt of the batch
could spare are cut off the right end of the token matrix, as many as the most padded row has.

Reduced from bigscience-workshop/petals at commit 063e94b4c8027e1e8d47061681007e9db292734f,
src/petals/client/remote_generation.py:153-157 (``RemoteGenerationMixin.generate``): where any
token equals ``pad_token_id``, the first output is ``inputs[:, : inputs.size(1) - (inputs ==
pad_token_id).sum(-1).max()]``; the loop then embeds it. Written here in our own words as a module
whose forward takes the token matrix, trims it the same way (without the ``torch.any`` guard: with
no padding the count is 0 and the slice keeps every column, as the unguarded branch does) and
returns the word embeddings of what is kept. The end is a shape minus a reduction of values.
"""

import torch
from torch import nn


class PromptTrim(nn.Module):
    def __init__(self, vocab: int = 12, dims: int = 4, pad_token_id: int = 0) -> None:
        super().__init__()
        self.pad_token_id = pad_token_id
        self.word_embeddings = nn.Embedding(vocab, dims)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        inputs = inputs[:, : inputs.size(1) - (inputs == self.pad_token_id).sum(-1).max()]
        return self.word_embeddings(inputs)


def build() -> nn.Module:
    return PromptTrim()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.tensor([[3, 5, 7, 0, 0], [2, 4, 6, 8, 0]]),)


DYNAMIC = {"inputs": {0: "batch", 1: "tokens"}}
