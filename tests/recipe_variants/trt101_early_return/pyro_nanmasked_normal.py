"""A normal log-density that counts missing (non-finite) observations as zero.

Reduced from pyro-ppl/pyro@ff6ae1c9572591791aae8842bcd702fcf0b46fd6 pyro/distributions/nanmasked.py:24-38
(``NanMaskedNormal.log_prob``: ``ok = value.isfinite()``, ``if ok.all(): return super().log_prob(value)``, then
the broadcast tensors, ``result = value.new_zeros(value.shape)`` and ``if ok.any(): result[ok] = ...`` of the
observed elements). Written here in our own words, as modules: the parent's ``log_prob`` is the normal density.
"""

import math

import torch
from torch import nn


class NormalDensity(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.loc = nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
        self.scale = nn.Parameter(torch.tensor([1.0, 0.5, 2.0]))

    def log_prob(self, value):
        return -((value - self.loc) / self.scale) ** 2 / 2 - self.scale.log() - math.log(math.sqrt(2 * math.pi))


class MissingAsZero(NormalDensity):
    def log_prob(self, value):
        ok = value.isfinite()
        if ok.all():
            return super().log_prob(value)
        value, ok, loc, scale = torch.broadcast_tensors(value, ok, self.loc, self.scale)
        result = value.new_zeros(value.shape)
        if ok.any():
            z = (value[ok] - loc[ok]) / scale[ok]
            result[ok] = -z ** 2 / 2 - scale[ok].log() - math.log(math.sqrt(2 * math.pi))
        return result

    def forward(self, value):
        return self.log_prob(value)


def build() -> nn.Module:
    return MissingAsZero()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Every observation present: the example takes the shortcut.
    return (torch.randn(4, 3, generator=generator),)


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    value = torch.randn(4, 3, generator=generator)
    value[1, 2], value[3, 0] = float("nan"), float("inf")
    return (value,)


DYNAMIC = {"value": {0: "batch"}}
