"""The parity of a size picks the odd or the even centring of a grid: piq's ``get_meshgrid``, on which FSIM
builds its log-Gabor filters at the input's size.

Reduced from photosynthesis-team/piq @ d9fb8af35486f5b2dd86d8b12c5e51049b1e90df, piq/functional/base.py
(``get_meshgrid``; lines 22-34 in the piq 0.8.0 release that zoo 25 runs: ``if size[0] % 2:`` odd,
``else:`` even, the same for ``size[1]``; called by piq/fsim.py:148 with ``(H, W)``), written here in our
own words. Both formulas give ``size[i]`` samples, so the two branches have one shape at every size.
"""

from typing import Optional, Tuple

import torch
from torch import nn


def centred_axes(size: Tuple[int, int], device: Optional[torch.device] = None,
                 dtype: Optional[torch.dtype] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    if size[0] % 2:
        # odd: a sample sits on the centre
        rows = torch.arange(-(size[0] - 1) / 2, size[0] / 2, device=device, dtype=dtype) / (size[0] - 1)
    else:
        # even: the centre falls between two samples
        rows = torch.arange(-size[0] / 2, size[0] / 2, device=device, dtype=dtype) / size[0]
    if size[1] % 2:
        cols = torch.arange(-(size[1] - 1) / 2, size[1] / 2, device=device, dtype=dtype) / (size[1] - 1)
    else:
        cols = torch.arange(-size[1] / 2, size[1] / 2, device=device, dtype=dtype) / size[1]
    return torch.meshgrid(rows, cols, indexing="ij")


class RadialLowpass(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, _, h, w = x.shape
        grid_y, grid_x = centred_axes((h, w), device=x.device, dtype=x.dtype)
        radius = torch.sqrt(grid_x ** 2 + grid_y ** 2)
        return x * torch.exp(-4 * radius)


def build() -> nn.Module:
    return RadialLowpass()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 2, 8, 10, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
