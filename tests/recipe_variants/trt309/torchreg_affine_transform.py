"""A volume's sampling grid from a fitted affine, its size unpacked into the list: torchreg.

Reduced from torchreg 0.1.3 (the PyPI wheel): torchreg/affine.py, ``affine_transform`` (lines
61-65), calls ``F.affine_grid(affine, [len(x), len(shape), *shape], align_corners)`` with
``shape = x.shape[2:]`` when no template size is given (the size's length is only known when the
call runs: 4 for an image, 5 for a volume), and torchreg/utils.py, ``create_grid`` (lines 40-41),
builds the identity grid ``F.affine_grid(torch.eye(4, device=device)[None, :3], [1, 3, *shape],
align_corners=...)`` that the SyN flows add to. Written here in our own words: the affine is a
parameter of ``(1, 3, 4)``, and the grids are returned (torchreg samples the volume with a 3-D
``grid_sample`` next, another rule's, left out). The batch stays static here: ``len(x)`` in the size
is TRT704's.
"""

import torch
import torch.nn.functional as F
from torch import nn


def affine_grid_for(x, affine, shape=None, align_corners=True):
    shape = x.shape[2:] if shape is None else shape
    return F.affine_grid(affine, [len(x), len(shape), *shape], align_corners)


def identity_grid(shape, device):
    return F.affine_grid(torch.eye(4, device=device)[None, :3], [1, 3, *shape], align_corners=True)


class FittedAffine(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.affine = nn.Parameter(torch.eye(4)[None, :3] + 0.1 * torch.randn(1, 3, 4, generator=g))

    def forward(self, x):
        grid = affine_grid_for(x, self.affine.expand(x.shape[0], -1, -1))
        return grid - identity_grid(x.shape[2:], x.device)


def build() -> nn.Module:
    return FittedAffine()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 4, 5, 6, generator=generator),)


DYNAMIC = {"x": {2: "depth", 3: "height", 4: "width"}}
