"""SimCLR's NT-Xent: the similarity matrix of the two augmented views stacked, the positive pairs
read from its two off-diagonals with ``torch.diag(sim, self.batch_size * self.world_size)`` and
``torch.diag(sim, -self.batch_size * self.world_size)`` (a matrix to the diagonal at an offset),
the rest kept by a fixed mask as negatives, and the cross entropy over both.

Reduced from Spijkervet/SimCLR, commit 2738efae85b3ca1b70b7919c5d7a7837d9d75235,
simclr/modules/nt_xent.py, ``NT_Xent.forward`` lines 27-52 (the diags at lines 41-42) and
``NT_Xent.mask_correlated_samples`` lines 18-25. Written here in our own words: one process
(``world_size`` 1, no gather), the mask built with ``torch.eye`` and rolled eyes, the cross
entropy's mean written out (log-softmax of the logits' first column).
"""

import torch
from torch import nn
from torch.nn import functional as F


class NTXent(nn.Module):
    def __init__(self, batch_size: int = 4, temperature: float = 0.5) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.world_size = 1
        self.temperature = temperature
        n = 2 * batch_size
        eye = torch.eye(n, dtype=torch.bool)
        self.register_buffer("mask", ~(eye | eye.roll(batch_size, 1) | eye.roll(-batch_size, 1)))
        self.similarity_f = nn.CosineSimilarity(dim=2)

    def forward(self, z_i: torch.Tensor, z_j: torch.Tensor) -> torch.Tensor:
        n = 2 * self.batch_size * self.world_size
        z = torch.cat((z_i, z_j), dim=0)
        sim = self.similarity_f(z.unsqueeze(1), z.unsqueeze(0)) / self.temperature
        sim_i_j = torch.diag(sim, self.batch_size * self.world_size)
        sim_j_i = torch.diag(sim, -self.batch_size * self.world_size)
        positive_samples = torch.cat((sim_i_j, sim_j_i), dim=0).reshape(n, 1)
        negative_samples = sim[self.mask].reshape(n, -1)
        logits = torch.cat((positive_samples, negative_samples), dim=1)
        return -F.log_softmax(logits, dim=1)[:, 0].mean()


def build() -> nn.Module:
    return NTXent()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 8, generator=generator), torch.randn(4, 8, generator=generator))


# The pairs are fixed by the batch size the module is built for; the projection's width is not.
DYNAMIC = {"z_i": {1: "features"}, "z_j": {1: "features"}}
