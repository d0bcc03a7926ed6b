"""torchani's all-pairs neighbour list: every pair of atoms once, screened by a cutoff.

Reduced from aiqm/torchani @ add216f2719b0cc3a8191dccd0142233ece7dc1c, torchani/neighbors.py: ``all_pairs`` (the
``AllPairs`` neighbour list's forward) reads ``molecs, atoms = species.shape`` and builds the candidate pairs as
``torch.triu_indices(atoms, atoms, 1, device=device)`` (line 214 in torchani 2.9.0), offset by ``atoms`` times the
molecule's index where there is more than one molecule; ``narrow_down`` then flattens the coordinates, keeps the
pairs within the cutoff (``nonzero`` of ``distances <= cutoff``) and returns their indices, distances and difference
vectors. Kept: the pair list, the branch on more than one molecule, the cutoff screen and the three outputs. Reduced:
no periodic cell, no dummy atoms (the ``species == -1`` screen), one molecule per call (the batch axis is not dynamic).
Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"species": {1: "atoms"}, "coords": {1: "atoms"}}
#: The line of the pair list (the rule's finding).
CALL = "pairs = torch.triu_indices(atoms, atoms, 1, device=device)"
CUTOFF = 2.5


def _screen(cutoff, coords, pairs):
    """The candidate pairs within ``cutoff``: their indices, distances and difference vectors."""
    flat = coords.view(-1, 3)
    first = flat.index_select(0, pairs[0])
    second = flat.index_select(0, pairs[1])
    near = ((first - second).norm(2, -1) <= cutoff).nonzero().flatten()
    pairs = pairs.index_select(1, near)
    diff = flat.index_select(0, pairs[0]) - flat.index_select(0, pairs[1])
    return pairs, diff.norm(2, -1), diff


class AllPairs(nn.Module):
    def __init__(self, cutoff=CUTOFF):
        super().__init__()
        self.cutoff = cutoff

    def forward(self, species, coords):
        molecs, atoms = species.shape
        device = species.device
        pairs = torch.triu_indices(atoms, atoms, 1, device=device)
        if molecs > 1:
            pairs = pairs.unsqueeze(1).repeat(1, molecs, 1)
            pairs = pairs + atoms * torch.arange(molecs, device=device).view(1, -1, 1)
            pairs = pairs.view(2, -1)
        return _screen(self.cutoff, coords, pairs)


def build() -> nn.Module:
    return AllPairs().eval()


def inputs(generator: torch.Generator, atoms: int = 7) -> tuple[torch.Tensor, ...]:
    """Element indices and coordinates of one molecule, in a box a few cutoffs wide."""
    species = torch.randint(0, 4, (1, atoms), generator=generator)
    return species, torch.rand(1, atoms, 3, generator=generator) * 4.0
