"""SchNet's continuous-filter convolution: messages over atom pairs summed into their centre atom.

Reduced from atomistic-machine-learning/schnetpack: src/schnetpack/nn/scatter.py at commit
380e55d1761346be121b06f9e8de5f74f248f122, ``scatter_add`` (lines 7-25: a zero tensor of
``dim_size`` rows, then ``tmp.index_add(dim, idx_i, x)``, line 24, in a plain function; later
commits move it under ``@torch.jit.script``, see ``schnetpack_schnet_scripted_scatter.py``), and
src/schnetpack/representation/schnet.py at commit 4c967da8d6f1183b5127cce90e62eb3ae9ab4543,
``SchNetInteraction.forward`` (lines 41-70: the filter network on the radial basis, times the
cutoff, the neighbours' features ``x[idx_j]`` times the filter, summed into each centre atom
``idx_i`` with ``scatter_add(x_ij, idx_i, dim_size=x.shape[0])``, line 67) and ``SchNet.forward``
(the embedding, the pair distances ``torch.norm(r_ij, dim=1)``, residual interactions). Every atom
is the centre of several pairs, so every index of ``idx_i`` repeats. The radial basis (Gaussians)
and the cosine cutoff are written after schnetpack.nn; ``Dense`` is a linear layer with an optional
shifted softplus. Written here in our own words, with two interactions and small sizes.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def shifted_softplus(x):
    return F.softplus(x) - math.log(2.0)


class Dense(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, activation=None):
        super().__init__(in_features, out_features, bias)
        self.activation = activation

    def forward(self, x):
        y = super().forward(x)
        return self.activation(y) if self.activation is not None else y


def scatter_add(x: torch.Tensor, idx_i: torch.Tensor, dim_size: int, dim: int = 0) -> torch.Tensor:
    shape = list(x.shape)
    shape[dim] = dim_size
    tmp = torch.zeros(shape, dtype=x.dtype, device=x.device)
    y = tmp.index_add(dim, idx_i, x)
    return y


class GaussianRBF(nn.Module):
    def __init__(self, n_rbf: int, cutoff: float) -> None:
        super().__init__()
        offsets = torch.linspace(0.0, cutoff, n_rbf)
        self.register_buffer("offsets", offsets)
        self.register_buffer("widths", torch.full_like(offsets, float(offsets[1] - offsets[0])))

    def forward(self, inputs):
        coeff = -0.5 / self.widths**2
        diff = inputs[..., None] - self.offsets
        return torch.exp(coeff * diff**2)


class CosineCutoff(nn.Module):
    def __init__(self, cutoff: float) -> None:
        super().__init__()
        self.register_buffer("cutoff", torch.tensor(cutoff))

    def forward(self, d_ij):
        return 0.5 * (torch.cos(d_ij * math.pi / self.cutoff) + 1.0) * (d_ij < self.cutoff).float()


class SchNetInteraction(nn.Module):
    def __init__(self, n_atom_basis: int, n_rbf: int, n_filters: int) -> None:
        super().__init__()
        self.in2f = Dense(n_atom_basis, n_filters, bias=False)
        self.f2out = nn.Sequential(Dense(n_filters, n_atom_basis, activation=shifted_softplus),
                                   Dense(n_atom_basis, n_atom_basis))
        self.filter_network = nn.Sequential(Dense(n_rbf, n_filters, activation=shifted_softplus),
                                            Dense(n_filters, n_filters))

    def forward(self, x, f_ij, idx_i, idx_j, rcut_ij):
        x = self.in2f(x)
        Wij = self.filter_network(f_ij)
        Wij = Wij * rcut_ij[:, None]
        x_j = x[idx_j]
        x_ij = x_j * Wij
        x = scatter_add(x_ij, idx_i, dim_size=x.shape[0])
        return self.f2out(x)


class SchNet(nn.Module):
    def __init__(self, n_atom_basis=8, n_interactions=2, n_rbf=6, cutoff=5.0, max_z=10) -> None:
        super().__init__()
        self.embedding = nn.Embedding(max_z, n_atom_basis, padding_idx=0)
        self.radial_basis = GaussianRBF(n_rbf, cutoff)
        self.cutoff_fn = CosineCutoff(cutoff)
        self.interactions = nn.ModuleList([SchNetInteraction(n_atom_basis, n_rbf, n_atom_basis)
                                           for _ in range(n_interactions)])

    def forward(self, atomic_numbers, r_ij, idx_i, idx_j):
        x = self.embedding(atomic_numbers)
        d_ij = torch.norm(r_ij, dim=1)
        f_ij = self.radial_basis(d_ij)
        rcut_ij = self.cutoff_fn(d_ij)
        for interaction in self.interactions:
            x = x + interaction(x, f_ij, idx_i, idx_j, rcut_ij)
        return x


def build() -> nn.Module:
    return SchNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Five atoms, every ordered pair of distinct atoms a neighbour pair (20 pairs), as a neighbour list
    # within the cutoff gives them.
    n_atoms = 5
    positions = torch.randn(n_atoms, 3, generator=generator) * 1.5
    pairs = torch.tensor([(i, j) for i in range(n_atoms) for j in range(n_atoms) if i != j])
    idx_i, idx_j = pairs[:, 0], pairs[:, 1]
    atomic_numbers = torch.randint(1, 10, (n_atoms,), generator=generator)
    return atomic_numbers, positions[idx_j] - positions[idx_i], idx_i, idx_j


DYNAMIC = {"atomic_numbers": {0: "atoms"}, "r_ij": {0: "pairs"}, "idx_i": {0: "pairs"}, "idx_j": {0: "pairs"}}
