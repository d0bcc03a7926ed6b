"""A sampling weight map shifted to non-negative only when it has a negative: MONAI's patch sampler.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/transforms/utils.py:577-583
(``weighted_patch_samples``: ``v = ravel(v)  # always copy`` (a flattened copy here), ``if (v < 0).any(): v -= v.min()``,
then ``v = cumsum(v)`` and a draw by ``searchsorted(v, r * v[-1])``). Written here in our own words:
the cumulative distribution itself is the output, no random draw.
"""

import torch
from torch import nn


class WeightedSampler(nn.Module):
    def forward(self, w):
        v = w.flatten().clone()
        if (v < 0).any():
            v -= v.min()
        v = torch.cumsum(v, 0)
        return v / v[-1]


def build() -> nn.Module:
    return WeightedSampler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(4, 5, generator=generator),)


DYNAMIC = {"w": {0: "h", 1: "w"}}
