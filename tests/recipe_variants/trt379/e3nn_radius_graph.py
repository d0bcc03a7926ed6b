"""e3nn's naive radius graph: every pair of atoms closer than ``r_max``, self-pairs left out by ``r > 0``.

Reduced from e3nn 0.6.0, ``e3nn/nn/models/v2106/gate_points_networks.py``: ``radius_graph(pos, r_max, batch)``
(lines 22-27) computes ``r = torch.cdist(pos, pos)`` (line 24), keeps ``((r < r_max) & (r > 0)).nonzero().T``
and drops the pairs of two molecules (``batch[index[0]] == batch[index[1]]``); ``SimpleNetwork`` then scatters
messages along the edges. Kept: the radius graph as written. Reduced: the messages are ones, summed onto their
target atom by a comparison with the atom indices (each atom's number of neighbours; a scatter-add of duplicate
indices is TRT341's), so the output is the graph's degree. At 25 atoms or fewer eager
mode's self-distances are exactly 0; the TorchScript export's (matrix-product form, the atom axis dynamic) are not,
so every atom gains itself as a neighbour. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"pos": {0: "atoms"}, "batch": {0: "atoms"}}


def radius_graph(pos, r_max, batch):
    r = torch.cdist(pos, pos)
    index = ((r < r_max) & (r > 0)).nonzero().T
    index = index[:, batch[index[0]] == batch[index[1]]]
    return index


class Model(nn.Module):
    def __init__(self, max_radius: float = 1.0) -> None:
        super().__init__()
        self.max_radius = max_radius

    def forward(self, pos, batch):
        edge_src, edge_dst = radius_graph(pos, self.max_radius, batch)
        atoms = torch.arange(pos.shape[0], device=pos.device)
        return (edge_dst[None, :] == atoms[:, None]).to(pos.dtype).sum(1)


def build():
    return Model().eval()


def make(atoms: int, generator=None, grid: bool = False):
    pos = torch.rand(atoms, 3, generator=generator) * 2.0 + 0.3
    if grid:  # sixteenths: the matrix-product form is exact there, at any size
        pos = torch.round(pos * 16) / 16
    return pos, torch.div(torch.arange(atoms), 7, rounding_mode="floor")


def inputs(generator=None):
    return make(12, torch.Generator().manual_seed(0) if generator is None else generator)
