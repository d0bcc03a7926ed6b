"""ESMFold 2's outer-product mean: the product's two axes split by ``unflatten`` twice.

Reduced from transformers 5.24.0, models/esmfold2/modeling_esmfold2.py: the outer-product mean's
``forward`` (lines 1155-1173) multiplies the left and right projections of the MSA as one matrix
product, splits both axes back with ``outer.unflatten(1, (-1, outer_dim)).unflatten(-1, (-1,
outer_dim)).transpose(2, 3).flatten(-2)`` (line 1170), projects and divides by the count of valid
pairs. Here one chunk (the whole sequence) and no mask; the pair representation is laid out as
``(batch, length * length, channels)`` with sizes read from the projected product. Written here in
our own words.
"""

import torch
from torch import nn


class OuterProductMean(nn.Module):
    def __init__(self, channels: int = 8, hidden: int = 4, out: int = 6) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(channels)
        self.input_proj = nn.Linear(channels, 2 * hidden)
        self.output_proj = nn.Linear(hidden * hidden, out)

    def forward(self, msa_states):
        projected = self.input_proj(self.norm(msa_states))
        left, right = projected.chunk(2, dim=-1)
        outer_dim = left.shape[-1]
        right_flat = right.permute(0, 2, 1, 3).flatten(2, 3)
        outer = left.transpose(2, 3).flatten(1, 2) @ right_flat
        outer = outer.unflatten(1, (-1, outer_dim)).unflatten(-1, (-1, outer_dim)).transpose(2, 3).flatten(-2)
        pair = self.output_proj(outer) / msa_states.shape[2]
        batch, length = pair.shape[0], pair.shape[1]
        return pair.reshape(batch, length * length, -1)


def build() -> nn.Module:
    return OuterProductMean().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 3, 8, generator=generator),)


DYNAMIC = {"msa_states": {0: "batch"}}
