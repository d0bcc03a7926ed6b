"""A modified Bessel function of the first kind that hands an all-zero argument back as it is.

Reduced from kornia/kornia@b4f5a78a13891c7ac4c1cd9695941380273e981d kornia/filters/kernels.py:207-249
(``_modified_bessel_i``: ``is_zero_mask = torch.isclose(x, torch.tensor(0.0, ...))``, ``if is_zero_mask.all():
return x``, then Miller's backward recurrence on the non-zero values, written back with ``out[~is_zero_mask] =
out_nz``). Written here in our own words: the recurrence's overflow rescaling is left out (its values stay small
at these orders); ``torch.isclose(x, 0)`` is its meaning, ``|x| <= 1e-8``, and ``I0`` its power series (neither
``isclose`` nor ``i0`` exports to ONNX).
"""

import torch
from torch import nn


def _bessel_i0(x, terms: int = 30):
    quarter, term, total = (x / 2) ** 2, torch.ones_like(x), torch.ones_like(x)
    for k in range(1, terms):
        term = term * quarter / (k * k)
        total = total + term
    return total


class BesselI(nn.Module):
    def __init__(self, order: int = 2, start: int = 24) -> None:
        super().__init__()
        self.order, self.start = order, start

    def forward(self, x):
        zero = x.abs() <= 1e-8
        if zero.all():
            return x
        nonzero = x[~zero]
        inverse = 2.0 / nonzero.abs()
        result = torch.zeros_like(nonzero)
        previous = torch.zeros_like(nonzero)
        current = torch.ones_like(nonzero)
        for j in range(self.start, 0, -1):
            previous, current = current, torch.addcmul(previous, inverse, current, value=j)
            if j == self.order:
                result = previous
        values = result * _bessel_i0(nonzero) / current
        if self.order % 2 == 1:
            values = torch.where(nonzero < 0, -values, values)
        out = torch.zeros_like(x)
        out[~zero] = values
        return out


def build() -> nn.Module:
    return BesselI()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A degenerate kernel parameter: every argument is zero, so the example takes the shortcut.
    return (torch.zeros(2, 5),)


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, generator=generator) * 2,)


DYNAMIC = {"x": {0: "batch", 1: "points"}}
