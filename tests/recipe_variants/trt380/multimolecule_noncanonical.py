"""MultiMolecule's non-canonical base pairs: self pairs taken out of the bool mask when the caller allows them.

Reduced from DLS5-Omics/multimolecule @ cb097904a459ed0f865551ee0dd1b10599a9fabe,
multimolecule/utils/rna/secondary_structure/noncanonical.py: ``_torch_noncanonical_pair_mask`` (lines 241-271) marks
``self_mask = flat_i == flat_j``, looks the pairs' base codes up in a bool table of canonical pairs,
``mask = unknown | ~canonical`` and, for self pairs it was told to ignore, writes
``mask = mask.masked_fill(self_mask, False)`` (line 269). Kept: the comparison masks, the table lookup, the bool
fill. Reduced: the base codes are an input (the sequence is text in the original), the self-pair check is always
taken, the table is a buffer. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"codes": {0: "length"}, "pairs": {0: "pairs"}}
FILL = "mask = mask.masked_fill(self_mask, False)"


class NoncanonicalPairs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        table = torch.zeros(4, 4, dtype=torch.bool)
        for left, right in ((0, 3), (3, 0), (2, 1), (1, 2), (2, 3), (3, 2)):  # AU, GC, GU both ways
            table[left, right] = True
        self.register_buffer("canonical_table", table)

    def forward(self, codes, pairs):
        flat_i = pairs[:, 0]
        flat_j = pairs[:, 1]
        self_mask = flat_i == flat_j
        codes_i = codes[flat_i]
        codes_j = codes[flat_j]
        unknown = (codes_i < 0) | (codes_j < 0)
        canonical = self.canonical_table[codes_i.clamp_min(0), codes_j.clamp_min(0)]
        mask = unknown | ~canonical
        mask = mask.masked_fill(self_mask, False)
        return mask


def build() -> nn.Module:
    return NoncanonicalPairs().eval()


def inputs(generator: torch.Generator, length: int = 7, count: int = 9) -> tuple[torch.Tensor, ...]:
    codes = torch.randint(-1, 4, (length,), generator=generator)
    pairs = torch.randint(0, length, (count, 2), generator=generator)
    if count:
        pairs[0, 1] = pairs[0, 0]  # a self pair
    return codes, pairs
