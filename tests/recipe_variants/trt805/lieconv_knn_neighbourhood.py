"""LieConv's k-NN neighbourhood: the nearest ``min(mc_samples, n)`` points, masked, averaged.

Reduced from mfinzi/LieConv @ 93affb1806100a848fdf7065d52bc69aff91405e, lie_conv/lieConv.py:165-207
(``k = min(self.mc_samples,inp_vals.shape[1])``, ``nbhd_idx = torch.topk(dists,k,dim=-1,
largest=False,sorted=False)[1]``, padding pushed away with ``1e8``, then the neighbours' values and
mask gathered) and the masked mean it convolves with. Written here in our own words with Euclidean
distances instead of a Lie group's.
"""

import torch
from torch import nn


class KnnNeighbourhood(nn.Module):
    def __init__(self, mc_samples: int = 5) -> None:
        super().__init__()
        self.mc_samples = mc_samples
        self.weight = nn.Linear(4, 6)

    def forward(self, coords, vals, mask):
        dists = (coords.unsqueeze(2) - coords.unsqueeze(1)).norm(dim=-1)
        dists = torch.where(mask[:, None, :].expand(*dists.shape), dists, 1e8 * torch.ones_like(dists))
        k = min(self.mc_samples, vals.shape[1])
        nbhd_idx = torch.topk(dists, k, dim=-1, largest=False, sorted=False)[1]
        b = torch.arange(vals.shape[0]).long()[:, None, None].expand(*nbhd_idx.shape)
        nbhd_vals = vals[b, nbhd_idx]
        nbhd_mask = mask[b, nbhd_idx] & mask[:, :, None]
        summed = (self.weight(nbhd_vals) * nbhd_mask.unsqueeze(-1)).sum(dim=2)
        return summed / nbhd_mask.sum(dim=2, keepdim=True).clamp(min=1)


def build() -> nn.Module:
    return KnnNeighbourhood()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    mask = torch.ones(2, 12, dtype=torch.bool)
    mask[1, 9:] = False
    return torch.randn(2, 12, 3, generator=generator), torch.randn(2, 12, 4, generator=generator), mask


DYNAMIC = {"coords": {0: "batch", 1: "points"}, "vals": {0: "batch", 1: "points"}, "mask": {0: "batch", 1: "points"}}
