"""A rational-quadratic spline's knots pinned to the interval's ends, per element.

Reduced from mbilos/stribor at commit f5ba941bf9d69e160d75e191ac622dd2b38260cd,
stribor/util/rational_quadratic_spline.py, ``rational_quadratic_spline`` (lines 166-192): the
boundaries are made ``(n, 1)`` tensors by a local function, the cumulative bin widths are scaled
to them, and the first and last knot are then set exactly with ``cumwidths[..., 0, None] = left``
and ``cumwidths[..., -1, None] = right`` (lines 183-184; the heights alike, 190-191). Here the
bins come from a linear layer over the inputs, and the model returns the knots and the bin widths.
Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Knots(nn.Module):
    def __init__(self, bins: int = 5) -> None:
        super().__init__()
        self.bins = nn.Linear(3, bins)

    def forward(self, x, low, high):
        def as_column(bound):
            return bound.unsqueeze(-1) if torch.is_tensor(bound) else torch.ones(x.shape[0], 1) * bound

        left = as_column(low)
        right = as_column(high)
        widths = F.softmax(self.bins(x), dim=-1)
        knots = torch.cumsum(widths, dim=-1)
        knots = F.pad(knots, pad=(1, 0), mode="constant", value=0.0)
        knots = (right - left) * knots + left
        knots[..., 0, None] = left
        knots[..., -1, None] = right
        return knots, knots[..., 1:] - knots[..., :-1]


def build() -> nn.Module:
    return Knots().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    x = torch.randn(6, 3, generator=generator)
    low = -1.0 - torch.rand(6, generator=generator)
    return x, low, low + 0.5 + 3 * torch.rand(6, generator=generator)


DYNAMIC = {"x": {0: "n"}, "low": {0: "n"}, "high": {0: "n"}}
