"""timm's NaFlexViT patch dump: the valid patches of an image put back into its grid, the grid's
height and width read out of the patch coordinates with ``.item()`` and used as reshape sizes.

Reduced from timm 1.0.31 (the PyPI release the second zoo unpacks), timm/models/naflexvit.py:2029-2041
(``_debug_dump_patches``): for each image, ``patches[i][patch_valid[i]]``, ``h = (patch_coord[i, :,
0].max() + 1).item()`` and ``w`` the same over the columns, ``patch.reshape(h, w, 16, 16, 3)
.permute(4, 0, 2, 1, 3)`` and ``.reshape(3, h*16, w*16)`` (then saved as an image). Written here in
our own words as a module for one image with 2x2 patches; the image is returned instead of saved.
"""

import torch
from torch import nn


class PatchGrid(nn.Module):
    def __init__(self, patch: int = 2) -> None:
        super().__init__()
        self.patch = patch

    def forward(self, patches: torch.Tensor, patch_valid: torch.Tensor, patch_coord: torch.Tensor) -> torch.Tensor:
        p = self.patch
        patch = patches[0][patch_valid[0]]
        h = (patch_coord[0, :, 0].max() + 1).item()
        w = (patch_coord[0, :, 1].max() + 1).item()
        patch = patch.reshape(h, w, p, p, 3).permute(4, 0, 2, 1, 3)
        return patch.reshape(3, h * p, w * p)


def build() -> nn.Module:
    return PatchGrid()


def grid(rows: int, cols: int, padding: int, generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    """A ``rows`` x ``cols`` image's patches in raster order, then ``padding`` invalid ones (coordinates 0)."""
    count = rows * cols
    ys, xs = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    coord = torch.cat([torch.stack([ys.reshape(-1), xs.reshape(-1)], -1), torch.zeros(padding, 2, dtype=torch.long)])
    valid = torch.arange(count + padding) < count
    return torch.randn(1, count + padding, 12, generator=generator), valid[None], coord[None]


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return grid(2, 3, 2, generator)


DYNAMIC = {"patches": {1: "patches"}, "patch_valid": {1: "patches"}, "patch_coord": {1: "patches"}}
