"""torchreg's scaling and squaring: a velocity field composed with itself by ``grid_sample`` with reflection.

Reduced from torchreg 0.1.3 (the PyPI wheel), torchreg/syn.py: ``SyNBase.diffeomorphic_transform``
(lines 28-32) halves the field ``time_steps`` times and adds ``spatial_transform(v, v)`` in a loop;
``spatial_transform`` (lines 37-40) builds the identity grid once with ``create_grid`` (torchreg/
utils.py:40-41, ``F.affine_grid(torch.eye(4)[None, :3], [1, 3, *shape], align_corners=True)``) and
calls ``F.grid_sample(x, self._grid + v.permute(0, 2, 3, 4, 1), align_corners=True,
padding_mode='reflection')``: the volume's rank is known only from the run, and reflection is the
padding. Written here in our own words as a module; the grid is rebuilt for each input's size as
the library's registration does before applying the flows.
"""

import torch
import torch.nn.functional as F
from torch import nn


def create_grid(shape, device):
    return F.affine_grid(torch.eye(4, device=device)[None, :3], [1, 3, *shape], align_corners=True)


class ScalingSquaring(nn.Module):
    def __init__(self, time_steps: int = 4) -> None:
        super().__init__()
        self.time_steps = time_steps
        self._grid = None

    def spatial_transform(self, x, v):
        return F.grid_sample(x, self._grid + v.permute(0, 2, 3, 4, 1), align_corners=True, padding_mode='reflection')

    def forward(self, v):
        self._grid = create_grid(v.shape[2:], v.device)
        v = v / (2 ** self.time_steps)
        for _ in range(self.time_steps):
            v = v + self.spatial_transform(v, v)
        return v


def build() -> nn.Module:
    return ScalingSquaring()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 5, 6, 7, generator=generator) * 2 - 1,)


DYNAMIC = {"v": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
