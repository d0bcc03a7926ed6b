"""Muon's Newton-Schulz orthogonalisation of a batch of matrices: timm.

Reduced from timm 1.0.31 (the PyPI wheel), timm/optim/muon.py, ``zeropower_via_newtonschulz``
(lines 119-205, the DTensor-friendly loop at lines 175-180): the matrix is transposed when it has
more rows than columns by rebinding ``X = X.mT`` (and back at the end, the same statement), divided
by its norm (times ``safety_factor``, clamped to ``eps``) and iterated ``A = X @ X.mT``,
``B = b * A + c * (A @ A)``, ``X = a * X + B @ X`` with the quintic coefficients. Written here in
our own words as a module that orthogonalises its input (the optimizer's update), five steps of one
coefficient triple, a safety factor of 1.05, the norm clamped as timm does without ``scale_eps``.
"""

import torch
from torch import nn

COEFFICIENTS = (3.4445, -4.7750, 2.0315)


class NewtonSchulz(nn.Module):
    def __init__(self, steps: int = 5, eps: float = 1e-7) -> None:
        super().__init__()
        self.steps = steps
        self.eps = eps

    def forward(self, G):
        X = G.to(dtype=torch.float32, copy=True)
        transposed = X.size(-2) > X.size(-1)
        if transposed:
            X = X.mT
        X = X / X.norm(2, dim=(-2, -1), keepdim=True).mul(1.05).clamp(min=self.eps)
        a, b, c = COEFFICIENTS
        for _ in range(self.steps):
            A = X @ X.mT
            B = b * A + c * (A @ A)
            X = a * X + (B @ X)
        if transposed:
            X = X.mT
        return X


def build() -> nn.Module:
    return NewtonSchulz()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, 6, 4, generator=generator),)


DYNAMIC = {"G": {0: "batch"}}
