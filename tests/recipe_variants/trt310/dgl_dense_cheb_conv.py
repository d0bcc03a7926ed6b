"""DGL's dense Chebyshev graph convolution: the Laplacian and the first Chebyshev term from ``th.eye(num_nodes)``.

Reduced from dmlc/dgl at 3b93db4b44b10d7c4f2e277dab69dad2ad11af82, python/dgl/nn/pytorch/conv/densechebconv.py,
``DenseChebConv.forward`` (lines 71-101; the identities at lines 79 and 87): with torch imported as ``th``,
the node count bound once from the adjacency (``num_nodes = A.shape[0]``), ``I = th.eye(num_nodes).to(A)``
for the normalized Laplacian ``I - D^-1/2 A D^-1/2`` and again as the first term of the Chebyshev
recurrence, ``Z = [th.eye(num_nodes).to(A)]``; the Laplacian scaled by ``2 / lambda_max`` minus the
identity, ``k`` terms ``T_i = 2 L_hat T_(i-1) - T_(i-2)``, each applied to the features with its own
weight, summed, plus the bias. ``lambda_max`` is the module's (2, the bound of a normalized Laplacian;
the original takes it as an argument and otherwise computes it with ``th.eig``, gone from torch).
Written here in our own words.
"""

import torch as th
from torch import nn


class DenseChebConv(nn.Module):
    def __init__(self, in_feats: int = 3, out_feats: int = 4, k: int = 3, lambda_max: float = 2.0) -> None:
        super().__init__()
        self.k = k
        self.lambda_max = lambda_max
        self.W = nn.Parameter(th.randn(k, in_feats, out_feats) * 0.5)
        self.bias = nn.Parameter(th.randn(out_feats) * 0.1)

    def forward(self, adj, feat):
        A = adj.to(feat)
        num_nodes = A.shape[0]
        in_degree = 1 / A.sum(dim=1).clamp(min=1).sqrt()
        D_invsqrt = th.diag(in_degree)
        I = th.eye(num_nodes).to(A)
        L = I - D_invsqrt @ A @ D_invsqrt
        L_hat = 2 * L / self.lambda_max - I
        Z = [th.eye(num_nodes).to(A)]
        for i in range(1, self.k):
            if i == 1:
                Z.append(L_hat)
            else:
                Z.append(2 * L_hat @ Z[-1] - Z[-2])
        Zs = th.stack(Z, 0)
        Zh = (Zs @ feat.unsqueeze(0) @ self.W).sum(0)
        return Zh + self.bias


def build() -> nn.Module:
    th.manual_seed(0)
    return DenseChebConv().eval()


def inputs(generator: th.Generator) -> tuple[th.Tensor, ...]:
    adj = (th.rand(6, 6, generator=generator) > 0.5).float()
    return adj, th.randn(6, 3, generator=generator)


DYNAMIC = {"adj": {0: "nodes", 1: "nodes"}, "feat": {0: "nodes"}}
