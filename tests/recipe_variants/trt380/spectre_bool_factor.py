"""spectre's factor inputs: an upstream factor masked with ``False`` where it is bool, with NaN where it is float.

Reduced from Heerozh/spectre @ c0e7fd974227b376a5790cc66d49f65d58929af8, spectre/factors/factor.py:
``CustomFactor._format_input`` (lines 614-623) regroups the upstream factor's output and, where a mask factor is
given, writes ``ret = ret.masked_fill(~mask, False)`` if ``ret.dtype == torch.bool`` and
``ret = ret.masked_fill(~mask, np.nan)`` otherwise (lines 620-623). The dtype is tested at run time, so the code
does not show which branch a call takes; the recorded run sees the bool one. Kept: the dtype test, both fills.
Reduced: no regrouping and no rolling window; the upstream factor is a comparison of prices with their mean, the
mask factor an input. Written here in our own words.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"prices": {0: "assets", 1: "days"}, "mask_out": {0: "assets", 1: "days"}}
FILL = "ret = ret.masked_fill(~mask, False)"


class FactorInput(nn.Module):
    def _format_input(self, upstream_out, mask_out):
        ret = upstream_out
        if mask_out is not None:
            mask = mask_out
            if ret.dtype == torch.bool:
                ret = ret.masked_fill(~mask, False)
            else:
                ret = ret.masked_fill(~mask, np.nan)
        return ret

    def forward(self, prices, mask_out):
        above = prices > prices.mean(dim=1, keepdim=True)
        return self._format_input(above, mask_out), self._format_input(prices, mask_out)


def build() -> nn.Module:
    return FactorInput().eval()


def inputs(generator: torch.Generator, assets: int = 4, days: int = 6) -> tuple[torch.Tensor, ...]:
    prices = torch.rand(assets, days, generator=generator) * 10 + 1
    return prices, torch.rand(assets, days, generator=generator) > 0.2
