"""Subband weights of a DCT similarity: a Gaussian over the block's frequencies, small ones zeroed.

Reduced from piq 0.8.0 (the PyPI wheel), piq/dss.py:86-101 (``coords = torch.arange(1, dct_size + 1,
dtype=x.dtype, device=x.device)``, ``weight = (coords - 0.5) ** 2``, a Gaussian of the sum of the
two axes' weights, then for every ``(m, n)``: ``if weight[m, n] < threshold: weight[m, n] = 0;
continue`` before a per-subband similarity). Written here in our own words: a per-subband mean
absolute difference stands in for piq's similarity, and the weighted mean over subbands is the output.
"""

import torch
from torch import nn


def subband_score(x: torch.Tensor, y: torch.Tensor, block: int = 4, sigma_weight: float = 0.9) -> torch.Tensor:
    grid = torch.arange(1, block + 1, dtype=x.dtype, device=x.device)
    weight = (grid - 0.5) ** 2
    weight = (-(weight.unsqueeze(0) + weight.unsqueeze(1)) / (2 * sigma_weight ** 2)).exp()
    scores = torch.zeros((x.size(0), block, block), device=x.device)
    cutoff = 1e-2
    for m in range(block):
        for n in range(block):
            if weight[m, n] < cutoff:
                weight[m, n] = 0
                continue
            scores[:, m, n] = (x[:, :, m::block, n::block] - y[:, :, m::block, n::block]).abs().mean(dim=(1, 2, 3))
    return (scores * (weight / weight.sum())).sum(dim=(1, 2))


class SubbandScore(nn.Module):
    def forward(self, x, y):
        return subband_score(x, y)


def build() -> nn.Module:
    return SubbandScore()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 1, 8, 12, generator=generator), torch.rand(2, 1, 8, 12, generator=generator)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}, "y": {0: "batch", 2: "h", 3: "w"}}
TEST_LINE = "            if weight[m, n] < cutoff:"
