"""ELECTRA's multiple-choice summary at the classification token: ``gather(-2, index).squeeze(-2)``.

Reduced from transformers 5.24.0, transformers/models/electra/modeling_electra.py,
``ElectraSequenceSummary.forward`` (lines 769-780, the ``cls_index`` summary, shared by XLNet,
Flaubert, ConvBERT and others): the position of each choice's classification token gets two
trailing axes (``unsqueeze(-1).unsqueeze(-1)``), is expanded over the hidden size with ``-1`` for
every leading axis, picks that token's hidden state with ``gather`` along the sequence, and the
picked axis of 1 is dropped with ``squeeze(-2)``, a negative axis on the call's result. Written
here in our own words with the summary's projection, its GELU and the multiple-choice classifier
after it (dropouts are identities in eval mode).

The squeezed axis is 1 by construction (the index has one position per choice), but the expand's
shape is computed from the tensors, so the export cannot size it: the TorchScript exporter guards
the squeeze with an ``If``.
"""

import torch
from torch import nn


class ChoiceSummary(nn.Module):
    def __init__(self, hidden_size: int = 8) -> None:
        super().__init__()
        self.summary = nn.Linear(hidden_size, hidden_size)
        self.activation = nn.GELU()
        self.classifier = nn.Linear(hidden_size, 1)

    def forward(self, hidden_states, cls_index):
        num_choices = hidden_states.shape[1]
        cls_index = cls_index.unsqueeze(-1).unsqueeze(-1)
        cls_index = cls_index.expand((-1,) * (cls_index.dim() - 1) + (hidden_states.size(-1),))
        output = hidden_states.gather(-2, cls_index).squeeze(-2)
        output = self.activation(self.summary(output))
        return self.classifier(output).view(-1, num_choices)


def build() -> nn.Module:
    return ChoiceSummary()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 8, generator=generator), torch.randint(0, 6, (2, 3), generator=generator))


DYNAMIC = {"hidden_states": {0: "batch", 1: "choices", 2: "sequence"}, "cls_index": {0: "batch", 1: "choices"}}
