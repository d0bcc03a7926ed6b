"""VoxelMorph's diffeomorphic integration at half resolution: a buffer grid and scaling and squaring.

Reduced from voxelmorph/voxelmorph at commit 1639e2bac49aacb9cbaf8593a82780f1caec22f6,
voxelmorph/torch/layers.py: ``SpatialTransformer`` (lines 6-41), ``VecInt`` (lines 44-61) and
``ResizeTransform`` (from line 64), put together as ``VxmDense`` does with ``int_downsize=2`` in
voxelmorph/torch/networks.py. The transformer's voxel grid of the size given at construction is a
buffer (``arange`` per axis, ``meshgrid``, stacked, a batch axis added, cast to float); ``forward``
adds the flow, rescales each axis in place with ``2 * (x / (size - 1) - 0.5)``, moves the vectors
last with ``permute(0, 2, 3, 4, 1)`` and reverses them, on lines of their own, and calls
``nnf.grid_sample(src, new_locs, mode=self.mode)`` (``align_corners`` at its default) through the
alias ``nnf``. The velocity is resized down (trilinear, scaled), integrated by adding the field warped
by itself ``nsteps`` times, and resized back up. Written here in our own words, with a small 3-D
convolution predicting the velocity from the moving and fixed volumes; the volume size is fixed by
the buffer (as in VoxelMorph, built for one ``inshape``), the batch varies.
"""

import torch
import torch.nn as nn
import torch.nn.functional as nnf


class SpatialTransformer(nn.Module):
    def __init__(self, size, mode="bilinear") -> None:
        super().__init__()
        vectors = [torch.arange(0, s) for s in size]
        grid = torch.unsqueeze(torch.stack(torch.meshgrid(vectors, indexing="ij")), 0)
        self.register_buffer("grid", grid.type(torch.FloatTensor))
        self.mode = mode

    def forward(self, src, flow):
        new_locs = self.grid + flow
        shape = flow.shape[2:]
        for i in range(len(shape)):
            new_locs[:, i, ...] = 2 * (new_locs[:, i, ...] / (shape[i] - 1) - 0.5)
        if len(shape) == 2:
            new_locs = new_locs.permute(0, 2, 3, 1)
            new_locs = new_locs[..., [1, 0]]
        elif len(shape) == 3:
            new_locs = new_locs.permute(0, 2, 3, 4, 1)
            new_locs = new_locs[..., [2, 1, 0]]
        return nnf.grid_sample(src, new_locs, mode=self.mode)


class VecInt(nn.Module):
    def __init__(self, inshape, nsteps) -> None:
        super().__init__()
        self.nsteps = nsteps
        self.scale = 1.0 / (2**self.nsteps)
        self.transformer = SpatialTransformer(inshape)

    def forward(self, vec):
        vec = vec * self.scale
        for _ in range(self.nsteps):
            vec = vec + self.transformer(vec, vec)
        return vec


class ResizeTransform(nn.Module):
    def __init__(self, vel_resize, ndims) -> None:
        super().__init__()
        self.factor = 1.0 / vel_resize
        self.mode = "trilinear" if ndims == 3 else "bilinear"

    def forward(self, x):
        if self.factor < 1:
            x = nnf.interpolate(x, scale_factor=self.factor, mode=self.mode)
            x = self.factor * x
        elif self.factor > 1:
            x = self.factor * x
            x = nnf.interpolate(x, scale_factor=self.factor, mode=self.mode)
        return x


class HalfResolutionFlow(nn.Module):
    def __init__(self, inshape=(8, 6, 10), nsteps=3) -> None:
        super().__init__()
        self.flow = nn.Conv3d(2, 3, 3, padding=1)
        self.resize = ResizeTransform(2, 3)
        self.fullsize = ResizeTransform(0.5, 3)
        self.integrate = VecInt([s // 2 for s in inshape], nsteps)
        self.transformer = SpatialTransformer(inshape)

    def forward(self, source, target):
        velocity = self.resize(self.flow(torch.cat([source, target], dim=1)) * 4)
        flow = self.fullsize(self.integrate(velocity))
        return self.transformer(source, flow)


def build() -> nn.Module:
    torch.manual_seed(0)
    return HalfResolutionFlow().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 8, 6, 10, generator=generator), torch.randn(2, 1, 8, 6, 10, generator=generator))


DYNAMIC = {"source": {0: "batch"}, "target": {0: "batch"}}
