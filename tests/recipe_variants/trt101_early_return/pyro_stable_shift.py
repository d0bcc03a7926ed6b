"""The location shift of a stable law's reparametrisation, interpolated across its hole at alpha = 1.

Reduced from pyro-ppl/pyro@ff6ae1c9572591791aae8842bcd702fcf0b46fd6 pyro/infer/reparam/stable.py:244-266
(``_safe_shift``: ``near_hole = (a - hole).abs() <= radius``, ``if not near_hole.any(): return _unsafe_shift(a,
skew, t_scale)``, then the shift at both edges of the hole blended by distance). Written here in our own words:
a module over the stability ``a`` and the skew.
"""

import math

import torch
from torch import nn


def _shift(a, skew, t_scale):
    return (skew.sign() * t_scale - skew) * (math.pi / 2 * a).tan()


class StableShift(nn.Module):
    def __init__(self, radius: float = 0.05) -> None:
        super().__init__()
        self.radius = radius

    def forward(self, a, skew):
        skew_abs = skew.abs().clamp(min=1e-6, max=1 - 1e-6)
        t_scale = skew_abs.pow(a.reciprocal())
        near_hole = (a - 1.0).abs() <= self.radius
        if not near_hole.any():
            return _shift(a, skew, t_scale)
        edges = torch.stack([torch.where(near_hole, 1.0 - self.radius, a),
                             torch.where(near_hole, 1.0 + self.radius, a)], -1)
        weights = (1 - (edges - a.unsqueeze(-1)).abs() / (2 * self.radius))
        weights = torch.where(near_hole.unsqueeze(-1), weights, torch.full_like(weights, 0.5))
        pairs = _shift(edges, skew.unsqueeze(-1), skew_abs.unsqueeze(-1).pow(edges.reciprocal()))
        return (pairs * weights).sum(-1)


def build() -> nn.Module:
    return StableShift()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Stabilities away from 1: the example takes the shortcut.
    return (torch.rand(6, generator=generator) * 0.6 + 1.2, torch.rand(6, generator=generator) * 2 - 1)


def other_branch(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    a = torch.rand(6, generator=generator) * 0.6 + 1.2
    a[2] = 1.01
    return (a, torch.rand(6, generator=generator) * 2 - 1)


DYNAMIC = {"a": {0: "n"}, "skew": {0: "n"}}
