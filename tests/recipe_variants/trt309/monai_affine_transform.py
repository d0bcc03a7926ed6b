"""An image resampled by normalized affine matrices through ``nn.functional.affine_grid``: MONAI.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/layers/spatial_transforms.py,
``AffineTransform.forward`` (lines 505-597): ``theta`` of ``N x 3 x 3`` (the homogeneous matrix),
the output size ``dst_size = tuple(src.shape)`` and ``nn.functional.affine_grid(theta=theta[:, :sr],
size=list(dst_size), align_corners=self.align_corners)`` (keywords, a list made from a shape, the
top rows of theta sliced in the call), then ``grid_sample``. Written here in our own words for
``normalized=True`` and a 2-D image (MONAI takes 3-D ones too); the checks, the padding of a
2 x 3 theta and the reversed indexing are left out.
"""

import torch
from torch import nn


class AffineTransform(nn.Module):
    def __init__(self, align_corners: bool = False) -> None:
        super().__init__()
        self.align_corners = align_corners

    def forward(self, src, theta):
        sr = src.dim() - 2
        dst_size = tuple(src.shape)
        if (theta.shape[0] == 1) and dst_size[0] > 1:
            theta = theta.repeat(dst_size[0], 1, 1)
        grid = nn.functional.affine_grid(theta=theta[:, :sr], size=list(dst_size), align_corners=self.align_corners)
        return nn.functional.grid_sample(input=src.contiguous(), grid=grid, mode="bilinear", padding_mode="zeros",
                                         align_corners=self.align_corners)


def build() -> nn.Module:
    return AffineTransform()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    theta = torch.eye(3).repeat(2, 1, 1) + 0.2 * torch.randn(2, 3, 3, generator=generator)
    return torch.randn(2, 3, 6, 7, generator=generator), theta


DYNAMIC = {"src": {0: "batch", 1: "channels", 2: "height", 3: "width"}, "theta": {0: "batch"}}
