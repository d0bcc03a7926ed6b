"""A volume's sampling grid for a fixed output size from ``N x 3 x 4`` matrices: MONAI's ``AffineTransform``.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/layers/spatial_transforms.py,
``AffineTransform.forward`` (lines 505-597), on the path a 3-D registration takes with
``spatial_size`` set and ``reverse_indexing=True``: a ``3 x 4`` theta padded to ``4 x 4`` with a
row ``[0, 0, 0, 1]`` (lines 538-542), ``dst_size = src_size[:2] + self.spatial_size`` (a tuple
joined from the input's shape and a fixed size), the axes of theta reversed in place by an index
tensor, then ``nn.functional.affine_grid(theta=theta[:, :sr], size=list(dst_size),
align_corners=...)``: a size of five held by a name, known only at run time. Written here in our
own words; the checks and the 3-D ``grid_sample`` after it (another rule's) are left out: the grid
is returned.
"""

import torch
from torch import nn


class FixedSizeAffine3d(nn.Module):
    def __init__(self, spatial_size=(4, 3, 5), align_corners: bool = False) -> None:
        super().__init__()
        self.spatial_size, self.align_corners = spatial_size, align_corners

    def forward(self, src, theta):
        theta = theta.clone()
        pad = torch.tensor([0, 0, 0, 1]).repeat(theta.shape[0], 1, 1).to(theta)
        theta = torch.cat([theta, pad], dim=1)
        sr = src.dim() - 2
        src_size = tuple(src.shape)
        dst_size = src_size[:2] + self.spatial_size
        rev_idx = torch.as_tensor(range(sr - 1, -1, -1), device=src.device)
        theta[:, :sr] = theta[:, rev_idx]
        theta[:, :, :sr] = theta[:, :, rev_idx]
        return nn.functional.affine_grid(theta=theta[:, :sr], size=list(dst_size), align_corners=self.align_corners)


def build() -> nn.Module:
    return FixedSizeAffine3d()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    theta = torch.eye(4)[:3].repeat(2, 1, 1) + 0.2 * torch.randn(2, 3, 4, generator=generator)
    return torch.randn(2, 3, 5, 6, 7, generator=generator), theta


DYNAMIC = {"src": {0: "batch", 1: "channels", 2: "depth", 3: "height", 4: "width"}, "theta": {0: "batch"}}
