"""Permutation-invariant source separation: each mixture's best permutation of the estimated sources.

Reduced from asteroid-team/asteroid @ 92c8d83a9dbe7c3afd1cd097e31254e0b4f82881,
asteroid/losses/pit_wrapper.py:294 (``PITLossWrapper.find_best_perm_factorial``, after Kaituo Xu's Conv-TasNet:
every permutation's mean pair-wise loss by ``torch.einsum`` with one-hot permutations, ``torch.min`` over them,
then ``torch.stack([perms[m] for m in min_loss_idx], dim=0)``, the permutation's indices looked up for each
mixture), in our own words: the pair-wise losses are mean squared errors by broadcasting, and the estimates are
put in that order (as ``reorder_source`` does) by a gather.
"""

from itertools import permutations

import torch
from torch import nn

DYNAMIC = {"est_targets": {0: "batch"}, "targets": {0: "batch"}}


def best_perm(pair_wise_losses):
    n_src = pair_wise_losses.shape[-1]
    pwl = pair_wise_losses.transpose(-1, -2)
    perms = pwl.new_tensor(list(permutations(range(n_src))), dtype=torch.long)
    one_hot = pwl.new_zeros((*perms.size(), n_src)).scatter_(2, perms.unsqueeze(2), 1)
    loss_set = torch.einsum("bij,pij->bp", [pwl, one_hot]) / n_src
    min_loss, min_loss_idx = torch.min(loss_set, dim=1)
    batch_indices = torch.stack([perms[m] for m in min_loss_idx], dim=0)
    return min_loss, batch_indices


class PermutationInvariantMSE(nn.Module):
    def forward(self, est_targets, targets):
        pair_wise = ((est_targets[:, :, None] - targets[:, None]) ** 2).mean(-1)
        min_loss, batch_indices = best_perm(pair_wise)
        order = batch_indices[:, :, None].expand(-1, -1, est_targets.shape[-1])
        return min_loss, torch.gather(est_targets, 1, order)


def build() -> nn.Module:
    return PermutationInvariantMSE()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, generator=generator), torch.randn(2, 3, 16, generator=generator))
