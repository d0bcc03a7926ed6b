"""OmDet-Turbo's task encoder: the text features and the attention mask cut to the longest task
prompt of the batch, its length read with ``.item()`` into a name used as slice bounds.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/omdet_turbo/modeling_omdet_turbo.py:259-268 (``OmDetTurboLanguageBackbone.forward``
with ``encode_type="task"``): ``max_len = (mask != 0).sum(1).max().item()``, then
``mask[:, :max_len]`` and ``pooled_output[:, :max_len, :]``, the features transposed to
sequence-first. Written here in our own words; the text model is a linear stand-in on float token
features, and the two results are returned as one tensor (the features times the cut mask).
"""

import torch
from torch import nn


class TaskTruncate(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.text_model = nn.Linear(dim, dim)

    def forward(self, hidden_states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        pooled_output = self.text_model(hidden_states)
        max_len = (mask != 0).sum(1).max().item()
        truncated_mask = mask[:, :max_len]
        truncated_output = pooled_output[:, :max_len, :]
        return truncated_output.transpose(0, 1) * truncated_mask.transpose(0, 1).unsqueeze(-1)


def build() -> nn.Module:
    return TaskTruncate()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    hidden_states = torch.randn(2, 7, 6, generator=generator)
    mask = torch.tensor([[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 0, 0]])
    return hidden_states, mask


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}, "mask": {0: "batch", 1: "tokens"}}
