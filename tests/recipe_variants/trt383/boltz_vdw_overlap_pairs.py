"""Boltz's van der Waals overlap potential: every pair of atoms once, from ``torch.triu_indices`` of the atom count.

Reduced from jwohlwend/boltz @ 832486dafed7b80e1246a3fed895e9bb03976558, src/boltz/model/potentials/potentials.py:
``VDWOverlapPotential.compute_args`` (lines 439-495) reads each atom's van der Waals radius, builds ``pair_index =
torch.triu_indices(atom_chain_id.shape[0], atom_chain_id.shape[0], 1, device=atom_chain_id.device)`` (lines 461-466),
keeps the pairs of atoms that are not padding (``atom_pad_mask[pair_index].all(dim=0)``) and, further on, of other
chains, and sets each kept pair's lower bound to the sum of the two radii times ``1 - buffer``. Kept: the pair list
of the atom count, the padding mask read through the pair list, the boolean selection of pairs and the lower bounds.
Reduced: no chain or ion masks (the pairs of one chain are kept), the radii are an input instead of the element
table's product, one structure (the batch index 0 of the original). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"atom_vdw_radii": {0: "atoms"}, "atom_pad_mask": {0: "atoms"}}
#: The line of the pair list (the rule's finding).
CALL = "pair_index = torch.triu_indices(n_atoms, n_atoms, 1, device=atom_vdw_radii.device)"
BUFFER = 0.225


class VDWOverlapPairs(nn.Module):
    def __init__(self, buffer=BUFFER):
        super().__init__()
        self.buffer = buffer

    def forward(self, atom_vdw_radii, atom_pad_mask):
        n_atoms = atom_vdw_radii.shape[0]
        pair_index = torch.triu_indices(n_atoms, n_atoms, 1, device=atom_vdw_radii.device)
        pair_pad_mask = atom_pad_mask[pair_index].all(dim=0)
        pair_index = pair_index[:, pair_pad_mask]
        lower_bounds = atom_vdw_radii[pair_index].sum(dim=0) * (1.0 - self.buffer)
        return pair_index, lower_bounds


def build() -> nn.Module:
    return VDWOverlapPairs().eval()


def inputs(generator: torch.Generator, atoms: int = 7) -> tuple[torch.Tensor, ...]:
    """Radii of ``atoms`` atoms, the last quarter of them padding."""
    radii = 1.2 + torch.rand(atoms, generator=generator)
    mask = torch.arange(atoms) < atoms - atoms // 4
    return radii, mask
