"""CHMv2's depth head: bin logits turned into depth by a "mixlog" normalization whose denominator
(a sum of shifted logits over the bins) is guarded with
``torch.nan_to_num(denom, nan=1.0, posinf=1.0, neginf=1.0).clamp_min(eps)`` (the call chained).

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
transformers/models/chmv2/modeling_chmv2.py, ``CHMv2FeaturesToDepth._create_outputs_with_mixlog_norm``
lines 302-319 (relu of the logits, the per-sample minimum shifted and clamped, the sum over the
bins, the ``nan_to_num`` guard at line 311, the weights times the clamped bins summed to a depth).
Written here in our own words: a 1x1 convolution stands in for the head that makes the bin
logits, and the bins are a linear buffer.
"""

import torch
from torch import nn


class MixlogDepth(nn.Module):
    def __init__(self, channels: int = 3, n_bins: int = 6) -> None:
        super().__init__()
        self.head = nn.Conv2d(channels, n_bins, kernel_size=1)
        self.register_buffer("bins", torch.linspace(0.5, 30.0, n_bins))
        self.eps = 1e-6
        self.eps_shift = 1e-3
        self.max_shift = 1e4

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        logits = torch.relu(self.head(features))
        lowest = logits.amin(dim=1, keepdim=True)
        shift = (-lowest).clamp_min(0.0).clamp_max(self.max_shift) + self.eps_shift
        shifted = logits + shift
        denom = shifted.sum(dim=1, keepdim=True)
        denom = torch.nan_to_num(denom, nan=1.0, posinf=1.0, neginf=1.0).clamp_min(self.eps)
        weights = shifted / denom
        bins = self.bins.view(1, -1, 1, 1).clamp_min(self.eps)
        return (weights * bins).sum(dim=1, keepdim=True).clamp_min(self.eps)


def build() -> nn.Module:
    return MixlogDepth()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 6, 8, generator=generator),)


DYNAMIC = {"features": {0: "batch", 2: "height", 3: "width"}}
