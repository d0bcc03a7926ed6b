"""Gemma 4's assistant head: logits computed for the tokens of the top centroids only, every other
vocabulary entry filled with one less than the smallest computed logit, read with ``.item()``.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/gemma4_assistant/modeling_gemma4_assistant.py:58-87 (the centroid-masked
output head; the same lines in gemma4_unified_assistant): centroid scores, ``torch.topk`` of them,
the canonical token positions of the chosen clusters gathered from ``token_ordering``, their
``lm_head`` rows dotted with the hidden states, ``mask_value = selected_logits.min().item() - 1.0``,
``torch.full(..., fill_value=mask_value)`` and a ``scatter_`` of the computed logits into it.
Written here in our own words with a small vocabulary; the ``lm_head`` weight is the module's own
parameter rather than an argument.
"""

import torch
from torch import nn


class CentroidLogits(nn.Module):
    def __init__(self, hidden: int = 8, num_centroids: int = 4, per_centroid: int = 3, top_k: int = 2) -> None:
        super().__init__()
        self.num_centroids, self.per_centroid, self.top_k = num_centroids, per_centroid, top_k
        self.vocab_size = num_centroids * per_centroid
        self.centroids = nn.Linear(hidden, num_centroids, bias=False)
        self.lm_head = nn.Parameter(torch.randn(self.vocab_size, hidden))
        self.register_buffer("token_ordering", torch.randperm(self.vocab_size))

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        batch, seq_len, hidden = hidden_states.shape
        _, top_k_indices = torch.topk(self.centroids(hidden_states), k=self.top_k, dim=-1)
        per_cluster = self.token_ordering.long().view(self.num_centroids, self.per_centroid)
        selected = per_cluster[top_k_indices]
        rows = self.lm_head[selected.reshape(-1)].view(batch, seq_len, self.top_k * self.per_centroid, hidden)
        selected_logits = (hidden_states.unsqueeze(-2) @ rows.transpose(-1, -2)).squeeze(-2)
        mask_value = selected_logits.min().item() - 1.0
        output = torch.full((batch, seq_len, self.vocab_size), fill_value=mask_value,
                            dtype=hidden_states.dtype, device=hidden_states.device)
        return output.scatter_(dim=-1, index=selected.view(batch, seq_len, -1), src=selected_logits)


def build() -> nn.Module:
    return CentroidLogits()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 8, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
