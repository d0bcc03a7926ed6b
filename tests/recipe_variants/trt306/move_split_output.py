"""A VAE's output cut back into its discrete and continuous datasets with ``tensor_split``: MOVE.

Reduced from RasmussenLab/MOVE (commit 07a152c89a681c6837421c1130f4ad85f7d2d906),
src/move/models/layers/chunk.py, ``SplitOutput.forward``: the decoder's output (batch, features) is
cut into its discrete and continuous halves with ``torch.tensor_split(x, [self.num_discrete_features],
dim=-1)`` (the point, an attribute, written out in a list); each half is then cut into its datasets
with ``torch.tensor_split(discrete_x, self.discrete_split_indices, dim=-1)``, the points held in an
attribute. Written here in our own words, with the datasets' reshapes and distributions left out.

The second form is not taken (``SplitSubsets`` below, kept for the rule's report): from the code
alone ``self.discrete_split_indices`` may be a list of points or a number of sections, which
``tensor_split`` takes by different overloads (the helper is typed ``List[int]`` for TorchScript).
"""

import torch
from torch import nn


class SplitOutput(nn.Module):
    def __init__(self, num_discrete_features: int = 6) -> None:
        super().__init__()
        self.num_discrete_features = num_discrete_features

    def forward(self, x):
        discrete_x, continuous_x = torch.tensor_split(
            x, [self.num_discrete_features], dim=-1
        )
        return torch.cat([discrete_x.softmax(-1), torch.exp(continuous_x)], dim=-1)


class SplitSubsets(nn.Module):
    """The datasets' points held in an attribute: reported, not rewritten."""

    def __init__(self) -> None:
        super().__init__()
        self.discrete_split_indices = [2, 5]

    def forward(self, discrete_x):
        return torch.tensor_split(discrete_x, self.discrete_split_indices, dim=-1)


def build() -> nn.Module:
    return SplitOutput()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "features"}}
