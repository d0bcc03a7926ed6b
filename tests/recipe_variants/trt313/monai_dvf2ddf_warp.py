"""MONAI's scaling and squaring: a velocity field integrated by warping the field by itself.

Reduced from MONAI 1.6.1 (the PyPI wheel), monai/networks/blocks/warp.py: ``Warp.get_reference_grid``
(lines 114-132), ``Warp.forward`` (lines 134-170, the native branch: ``USE_COMPILED`` off) and
``DVF2DDF.forward`` (lines 192-203). The displacement starts as the velocity over ``2**num_steps``
and is added to itself warped by itself ``num_steps`` times. ``Warp`` builds a voxel reference grid
(``arange`` per spatial axis, stacked, repeated over the batch), adds the displacement, moves the
vector axis last with a permutation built from a list (``[0] + list(range(2, 2 + spatial_dims)) +
[1]``), rescales each axis in place to ``[-1, 1]`` (``* 2 / max(dim - 1, 1) - 1``), reverses the
vector to ``x, y, z`` and calls ``F.grid_sample`` with the modes held on the module and
``align_corners=True``. Written here in our own words; MONAI caches the reference grid on the
module between calls, left out here (a cached grid would be a constant in a traced graph). The
batch is not declared dynamic: the reference grid is repeated with ``[grid] * ddf.shape[0]``, a
Python list as long as the example's batch, so the traced graph keeps that batch (with a dynamic
batch, migrate applies TRT313 and takes it back: the graph's Add cannot broadcast another batch).
"""

import torch
import torch.nn.functional as F
from torch import nn


class Warp(nn.Module):
    def __init__(self, mode: str = "bilinear", padding_mode: str = "zeros") -> None:
        super().__init__()
        self._interp_mode_native = mode
        self._padding_mode_native = padding_mode

    def get_reference_grid(self, ddf):
        axes = [torch.arange(0, size) for size in ddf.shape[2:]]
        grid = torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=0)
        grid = torch.stack([grid] * ddf.shape[0], dim=0)
        return grid.to(ddf)

    def forward(self, image, ddf):
        spatial_dims = len(image.shape) - 2
        if spatial_dims not in (2, 3):
            raise NotImplementedError(f"unsupported spatial_dims={spatial_dims}")
        grid = self.get_reference_grid(ddf) + ddf
        grid = grid.permute([0] + list(range(2, 2 + spatial_dims)) + [1])
        for i, dim in enumerate(grid.shape[1:-1]):
            grid[..., i] = grid[..., i] * 2 / max(dim - 1, 1) - 1
        order = list(range(spatial_dims - 1, -1, -1))
        grid = grid[..., order]
        return F.grid_sample(
            image, grid, mode=self._interp_mode_native, padding_mode=self._padding_mode_native, align_corners=True
        )


class DVF2DDF(nn.Module):
    def __init__(self, num_steps: int = 3) -> None:
        super().__init__()
        self.num_steps = num_steps
        self.warp_layer = Warp()

    def forward(self, dvf):
        ddf = dvf / (2**self.num_steps)
        for _ in range(self.num_steps):
            ddf = ddf + self.warp_layer(image=ddf, ddf=ddf)
        return ddf


def build() -> nn.Module:
    return DVF2DDF().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 5, 6, 4, generator=generator) * 2,)


DYNAMIC = {"dvf": {2: "depth", 3: "height", 4: "width"}}
