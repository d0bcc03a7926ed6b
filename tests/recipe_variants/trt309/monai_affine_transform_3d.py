"""A volume's sampling grid from homogeneous ``4 x 4`` matrices at the volume's own size: MONAI.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/layers/spatial_transforms.py,
``AffineTransform.forward`` (lines 505-597), for a 3-D ``src``: ``sr = src.dim() - 2`` (3),
``dst_size = tuple(src.shape)`` and ``nn.functional.affine_grid(theta=theta[:, :sr],
size=list(dst_size), align_corners=self.align_corners)``: a size of five held by a name, the top
three rows of the ``N x 4 x 4`` theta sliced in the call. Written here in our own words for
``normalized=True``; the checks, the reversed indexing and the 3-D ``grid_sample`` after it (another
rule's) are left out: the grid is returned.
"""

import torch
from torch import nn


class AffineTransform3d(nn.Module):
    def __init__(self, align_corners: bool = True) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, src, theta):
        sr = src.dim() - 2
        dst_size = tuple(src.shape)
        if (theta.shape[0] == 1) and dst_size[0] > 1:
            theta = theta.repeat(dst_size[0], 1, 1)
        return nn.functional.affine_grid(theta=theta[:, :sr], size=list(dst_size), align_corners=self.align_corners)


def build() -> nn.Module:
    return AffineTransform3d()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    theta = torch.eye(4).repeat(2, 1, 1) + 0.2 * torch.randn(2, 4, 4, generator=generator)
    return torch.randn(2, 3, 5, 6, 7, generator=generator), theta


DYNAMIC = {"src": {0: "batch", 1: "channels", 2: "depth", 3: "height", 4: "width"}, "theta": {0: "batch"}}
