"""TorchMD-Net's all-to-all Coulomb term: every pair of atoms of one molecule, from ``torch.triu_indices``.

Reduced from torchmd/torchmd-net @ 833c07708e7d507fc33bdcd835ed083a321cc651, torchmdnet/models/output_modules.py:
``_triu_indices(x, batch)`` (lines 335-341) reads ``N = x.shape[0]``, takes ``i, j = torch.triu_indices(N, N, 1,
device=x.device, dtype=torch.long).unbind(0)`` and keeps the pairs whose atoms share a molecule (``batch[i] ==
batch[j]``); ``ScalarPlusWeightedCoulomb.pre_reduce`` (lines 451-540) calls it in its ``all_to_all`` mode and adds a
damped Coulomb energy ``q_i * q_j / d_ij`` per pair to the atoms' energies. Kept: the pair list and its molecule mask,
the charges and distances gathered per pair and the short-range damping (``_exp_cutoff``, lines 320-332). Reduced:
the output network is one linear layer, the charges come from a second one, one charge channel, no CUDA-graph
bookkeeping (the edge index is not kept on ``self``), no unit constant, and the pair energies are returned beside the
atoms' (the original scatters them onto the atoms). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "atoms"}, "pos": {0: "atoms"}, "batch": {0: "atoms"}}
#: The line of the pair list (the rule's finding).
CALL = "i, j = torch.triu_indices(N, N, 1, device=x.device, dtype=torch.long).unbind(0)"
HIDDEN = 6


def _exp_cutoff(d, rc):
    """A smooth cutoff: 1 at 0, 0 from ``rc`` on."""
    fc = torch.exp(-1.0 / (1.0 - (d / rc).clamp(0, 1.0 - 1e-6).pow(2))) / 0.36787944117144233
    return fc


def _triu_indices(x, batch):
    """Every pair of atoms once, kept where both belong to the same molecule."""
    N = x.shape[0]
    i, j = torch.triu_indices(N, N, 1, device=x.device, dtype=torch.long).unbind(0)
    mask = batch[i] == batch[j]
    i = i[mask]
    j = j[mask]
    return torch.stack([i, j])


class CoulombOutput(nn.Module):
    def __init__(self, hidden=HIDDEN):
        super().__init__()
        self.energy = nn.Linear(hidden, 1)
        self.charge = nn.Linear(hidden, 1)

    def forward(self, x, pos, batch):
        energy = self.energy(x)
        charges = self.charge(x)
        edge_index = _triu_indices(x, batch)
        q_ij = charges[edge_index[0]] * charges[edge_index[1]]
        d_ij = torch.linalg.norm(pos[edge_index[0]] - pos[edge_index[1]], dim=-1)
        fc = 1.0 - _exp_cutoff(d_ij, 4.6)
        e_ij = fc.unsqueeze(-1) * q_ij / d_ij.unsqueeze(-1)
        return energy, e_ij


def build() -> nn.Module:
    return CoulombOutput().eval()


def inputs(generator: torch.Generator, atoms: int = 7) -> tuple[torch.Tensor, ...]:
    """Atom features, positions a few ångström apart, and molecule indices (two molecules where there are atoms
    enough)."""
    x = torch.randn(atoms, HIDDEN, generator=generator)
    pos = torch.rand(atoms, 3, generator=generator) * 6.0 + torch.arange(atoms).unsqueeze(1) * 0.1
    batch = (torch.arange(atoms) >= (atoms + 1) // 2).long()
    return x, pos, batch
