"""Whisper's suppressed tokens set to -inf with ``torch.isin`` over the vocabulary: transformers.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/generation/logits_process.py,
``SuppressTokensLogitsProcessor.__call__`` (lines 1942-1950: ``vocab_tensor =
torch.arange(scores.shape[-1], device=scores.device)``, ``suppress_token_mask =
torch.isin(vocab_tensor, self.suppress_tokens.to(scores.device))``, then ``torch.where(...,
-float("inf"), scores)``; ``SuppressTokensAtBeginLogitsProcessor`` at line 1905 is the same).
Written here in our own words as a module over a decoder's logits.
"""

import torch
from torch import nn


class SuppressTokens(nn.Module):
    def __init__(self, suppress_tokens=(1, 4, 5, 11)) -> None:
        super().__init__()
        self.suppress_tokens = torch.tensor(list(suppress_tokens))

    def forward(self, scores):
        vocab_tensor = torch.arange(scores.shape[-1], device=scores.device)
        suppress_token_mask = torch.isin(vocab_tensor, self.suppress_tokens.to(scores.device))
        return torch.where(suppress_token_mask, -float("inf"), scores)


def build() -> nn.Module:
    return SuppressTokens()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 12, generator=generator),)


DYNAMIC = {"scores": {0: "batch", 1: "vocab"}}
