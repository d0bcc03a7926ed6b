"""kornia's ALIKED descriptor: keypoints turned into the integer top-left corners of square
patches (``(points - ps / 2 + 1).long()``), each column then clamped to the image in place
(``corner[:, 0] = corner[:, 0].clamp(min=0, max=w - 1 - ps)``), and the patch grid added.

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/feature/aliked/aliked.py:134-146 (``get_patches``: the corner arithmetic, the two column
clamps, the offsets meshgrid added to the corners), written here in our own words; the patches
are returned as corner coordinates instead of being sampled from the feature map.
"""

import torch
from torch import nn


class PatchCorners(nn.Module):
    def __init__(self, ps: int = 3) -> None:
        super().__init__()
        self.ps = ps

    def forward(self, feats: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
        ps = self.ps
        h, w = feats.shape[-2:]
        corner = (points - ps / 2 + 1).long()
        corner[:, 0] = corner[:, 0].clamp(min=0, max=w - 1 - ps)
        corner[:, 1] = corner[:, 1].clamp(min=0, max=h - 1 - ps)
        offset = torch.arange(0, ps)
        x, y = torch.meshgrid(offset, offset, indexing="ij")
        grid = torch.stack((x, y)).permute(2, 1, 0).unsqueeze(2)
        return grid.to(corner) + corner[None, None]


def build() -> nn.Module:
    return PatchCorners()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    feats = torch.randn(4, 12, 10, generator=generator)
    points = torch.rand(5, 2, generator=generator) * 14 - 2  # some corners fall outside
    return feats, points


DYNAMIC = {"feats": {1: "height", 2: "width"}, "points": {0: "points"}}
