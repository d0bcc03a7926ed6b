"""egnn-pytorch's sparse neighbours: the self loops taken out of a bool adjacency before ranking the neighbours.

Reduced from lucidrains/egnn-pytorch @ d3ba97d5b2540085cf8e02c838ebf5e42071697f (0.2.8), egnn_pytorch/egnn_pytorch.py:
``EGNN.forward`` (lines 238-256) ranks every node pair by distance, builds
``self_mask = rearrange(torch.eye(n, device = device, dtype = torch.bool), 'i j -> () i j')`` (line 252), takes the
diagonal out of the bool adjacency the caller passes in with ``adj_mat = adj_mat.masked_fill(self_mask, False)``
(line 254) and then ranks self loops first and bonded neighbours next (``ranking.masked_fill_(self_mask, -1.)``,
``ranking.masked_fill_(adj_mat, 0.)``, lines 255-256). The adjacency is a forward argument: the code does not show
its dtype, a recorded run does. Kept: the bool identity with a leading axis, the fill with ``False``, the two
rankings. Reduced: ``rearrange(..., 'i j -> () i j')`` is written ``[None]`` (the test extras carry no einops), no top-k
and no message passing; the ranking and the adjacency are returned. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"coors": {0: "b", 1: "n"}, "adj_mat": {0: "b", 1: "n", 2: "m"}}
#: The line of the bool fill (the rule's finding).
FILL = "adj_mat = adj_mat.masked_fill(self_mask, False)"


class Neighbours(nn.Module):
    def forward(self, coors, adj_mat):
        n = coors.shape[1]
        rel_coors = coors[:, :, None, :] - coors[:, None, :, :]
        ranking = (rel_coors ** 2).sum(dim=-1)
        self_mask = torch.eye(n, device=coors.device, dtype=torch.bool)[None]
        adj_mat = adj_mat.masked_fill(self_mask, False)
        ranking.masked_fill_(self_mask, -1.)
        ranking.masked_fill_(adj_mat, 0.)
        return ranking, adj_mat


def build() -> nn.Module:
    return Neighbours().eval()


def inputs(generator: torch.Generator, b: int = 2, n: int = 5) -> tuple[torch.Tensor, ...]:
    coors = torch.randn(b, n, 3, generator=generator)
    adj = torch.rand(b, n, n, generator=generator) > 0.5
    return coors, adj | adj.transpose(1, 2)
