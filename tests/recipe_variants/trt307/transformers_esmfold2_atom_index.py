"""Each atom's index within its residue token in ESMFold2's confidence head: a count reset by a cummax.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/esmfold2/
modeling_esmfold2.py, ``_compute_intra_token_idx`` (lines 1346-1356, called from
``EsmFold2ConfidenceHead`` at line 1483; the modular file, line 1254): a token's atoms are
contiguous, so a running count (a ``cumsum`` of ones) minus the count where the token's run
began, that start kept for the whole run by ``torch.cummax(group_start, dim=-1).values`` over
the count zeroed where an atom belongs to the same token as the one before. Written here in our
own words as a module that then picks a per-index weight, as the head does with its pLDDT weights.
"""

import torch
import torch.nn.functional as F
from torch import nn


class IntraTokenIndex(nn.Module):
    def __init__(self, max_atoms: int = 4) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(max_atoms, 3))

    def forward(self, atom_to_token):
        same_as_prev = F.pad(atom_to_token[:, 1:] == atom_to_token[:, :-1], (1, 0), value=False)
        cumsum = torch.cumsum(torch.ones_like(atom_to_token), dim=-1)
        group_start = cumsum.masked_fill(same_as_prev, 0)
        group_start = torch.cummax(group_start, dim=-1).values
        intra_idx = (cumsum - group_start).clamp(max=self.weight.shape[0] - 1)
        return self.weight[intra_idx]


def build() -> nn.Module:
    return IntraTokenIndex()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 2, (2, 10), generator=generator).cumsum(-1),)


DYNAMIC = {"atom_to_token": {0: "batch", 1: "atoms"}}
