"""Squared Sampson distances of many fundamental matrices on one set of points: kornia.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/epipolar/_metrics.py, ``_sampson_errors``
(lines 143-159), with its guards ``_nonzero`` and ``_inf_where`` from kornia/geometry/linalg.py (lines
304-316): the epipolar lines ``F x1`` of every model come from one ``(3M, 3) @ (3, N)`` product, and the
first two components of ``F^T x2`` from the transposed matrices read as ``F.mT[:, :2]`` (the property,
then a slice of it), reshaped to ``(2M, 3)``; the residual over the squared gradient norm, with inf
where the norm is zero. Written here in our own words; the homogeneous points are the inputs.
"""

import torch
from torch import nn


def _nonzero(x):
    return torch.where(x == 0, torch.ones_like(x), x)


def _inf_where(value, singular):
    return torch.where(singular, torch.full_like(value, torch.inf), value)


class SampsonErrors(nn.Module):
    def forward(self, F, x1, x2):
        m, n = F.shape[0], x1.shape[0]
        lines = (F.reshape(3 * m, 3) @ x1.T).view(m, 3, n)
        lines_t = (F.mT[:, :2].reshape(2 * m, 3) @ x2.T).view(m, 2, n)
        residual = x2[:, 0] * lines[:, 0] + x2[:, 1] * lines[:, 1] + x2[:, 2] * lines[:, 2]
        denominator = lines[:, 0].square() + lines[:, 1].square() + lines_t[:, 0].square() + lines_t[:, 1].square()
        return _inf_where(residual.square() / _nonzero(denominator), denominator == 0)


def build() -> nn.Module:
    return SampsonErrors()


def points(generator: torch.Generator, n: int) -> torch.Tensor:
    return torch.cat([torch.randn(n, 2, generator=generator), torch.ones(n, 1)], 1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(4, 3, 3, generator=generator), points(generator, 6), points(generator, 6)


DYNAMIC = {"F": {0: "models"}, "x1": {0: "points"}, "x2": {0: "points"}}
