"""Grounding DINO's label maps: the label groups of a prompt found with ``torch.unique``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/grounding_dino/
modeling_grounding_dino.py, ``build_label_maps`` (lines 2330-2362; the same in MM Grounding DINO):
for each prompt, ``unique_labels = torch.unique(label_group)[1:, None]`` drops the group 0 of
non-label tokens (line 2352), the group row is repeated once per label and compared with the
labels into a one-hot map of tokens per label. Written here in our own words for one prompt whose
label groups are the input (the original derives them from the delimiter tokens with
``torch.isin``, TRT305's recipe, and a ``cumsum``; the per-prompt loop and the pad to the longest
prompt are left out).
"""

import torch
from torch import nn


class LabelMaps(nn.Module):
    def forward(self, label_group):
        unique_labels = torch.unique(label_group)[1:, None]
        num_labels = unique_labels.shape[0]
        label_map = label_group.unsqueeze(0).repeat(num_labels, 1)
        return torch.where(label_map == unique_labels, 1, 0)


def build() -> nn.Module:
    return LabelMaps()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.tensor([0, 1, 1, 0, 2, 0, 3, 3, 3, 0]),)


DYNAMIC = {"label_group": {0: "tokens"}}
