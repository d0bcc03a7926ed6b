"""``max(1, round(min(x.size()[-2:]) / 256))``: piq's automatic downsampling factor.

Reduced from piq 0.8.0 (photosynthesis-team/piq), piq/ssim.py:59 (the same line in vsi.py:79,
fsim.py:64, srsim.py:50, mdsi.py:73), written here in our own words. piq pools by the factor behind
``if (f > 1) and downsample`` (a decision on sizes, TRT713's); here the factor strides a slice, so the
graph shows it at every size. The TorchScript exporter stops at ``round`` (a traced size reaches it).
"""

import torch
from torch import nn


class StridedPreview(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = max(1, round(min(x.size()[-2:]) / 256))
        return x[..., ::f, ::f]


def build() -> nn.Module:
    return StridedPreview()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 1, 300, 200, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
