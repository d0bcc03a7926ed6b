"""A volume warped by ``(B, 3, 4)`` matrices to an output size given apart: kornia's ``warp_affine3d``.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/geometry/transform/imgwarp.py,
``warp_affine3d`` (lines 1468-1542): ``B, C, D, H, W = src.size()``, the matrix normalized to
``P_norm`` (``Bx3x4``), then ``dsize_out: list[int] = [B, C, *list(size_out)]`` and
``F.affine_grid(P_norm, dsize_out, align_corners=align_corners)`` (a name holding a list with an
unpacked tuple in it), then a 3-D ``grid_sample``. Written here in our own words: the matrices are
taken as already normalized, the grid is returned (the 3-D sampling is another rule's), and the
checks and the empty-batch path are left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


class WarpAffine3d(nn.Module):
    def __init__(self, dsize=(3, 4, 5), align_corners: bool = False) -> None:
        super().__init__()
        self.dsize, self.align_corners = dsize, align_corners

    def forward(self, src, P_norm):
        B, C, D, H, W = src.size()
        size_out = self.dsize
        align_corners = self.align_corners
        dsize_out: list[int] = [B, C, *list(size_out)]
        grid = F.affine_grid(P_norm, dsize_out, align_corners=align_corners)
        return grid


def build() -> nn.Module:
    return WarpAffine3d()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    theta = torch.eye(4)[:3].repeat(2, 1, 1) + 0.2 * torch.randn(2, 3, 4, generator=generator)
    return torch.randn(2, 1, 6, 7, 8, generator=generator), theta


DYNAMIC = {"src": {0: "batch", 1: "channels", 2: "depth", 3: "height", 4: "width"}, "P_norm": {0: "batch"}}
