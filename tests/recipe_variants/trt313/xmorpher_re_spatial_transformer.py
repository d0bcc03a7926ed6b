"""XMorpher's inverse warp: the flow warped by itself, negated, then the source warped by it.

Reduced from Solemoon/XMorpher at commit 873bae7d2857c4f7a790b745444d496afbcb1739, utils/STN.py:
``SpatialTransformer.forward`` (lines 9-32) and ``Re_SpatialTransformer.forward`` (lines 40-43).
The transformer builds the voxel grid in ``forward`` from the flow's spatial shape (``arange`` per
axis, ``meshgrid``, stacked, a batch axis added, cast to float), adds the flow, rescales each axis
in place with ``2 * (x / (size - 1) - 0.5)``, and, for three spatial axes, moves the vectors last
with ``permute(0, 2, 3, 4, 1)`` and reverses them, on separate lines from the call; the call is
``nnf.grid_sample(src, new_locs, mode=mode)`` through the module alias ``nnf`` (``align_corners``
left at its default). ``Re_SpatialTransformer`` calls it twice: on the flow by the flow, then on
the source by the negated result. Written here in our own words; the original's ``.cuda()`` is
left out, and a one-line model passes the mode through as XMorpher's registration step does.
"""

import torch
import torch.nn as nn
import torch.nn.functional as nnf


class SpatialTransformer(nn.Module):
    def forward(self, src, flow, mode="bilinear"):
        shape = flow.shape[2:]
        axes = [torch.arange(0, s) for s in shape]
        grid = torch.stack(torch.meshgrid(axes, indexing="ij"))
        grid = torch.unsqueeze(grid, 0).type(torch.FloatTensor)
        new_locs = grid + flow
        for i in range(len(shape)):
            new_locs[:, i, ...] = 2 * (new_locs[:, i, ...] / (shape[i] - 1) - 0.5)
        if len(shape) == 2:
            new_locs = new_locs.permute(0, 2, 3, 1)
            new_locs = new_locs[..., [1, 0]]
        elif len(shape) == 3:
            new_locs = new_locs.permute(0, 2, 3, 4, 1)
            new_locs = new_locs[..., [2, 1, 0]]
        return nnf.grid_sample(src, new_locs, mode=mode)


class ReSpatialTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stn = SpatialTransformer()

    def forward(self, src, flow, mode="bilinear"):
        inverse = -1 * self.stn(flow, flow, mode="bilinear")
        return self.stn(src, inverse, mode)


class InverseWarp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.re_stn = ReSpatialTransformer()

    def forward(self, src, flow):
        return self.re_stn(src, flow, "bilinear")


def build() -> nn.Module:
    return InverseWarp().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 2, 4, 5, 6, generator=generator), torch.randn(2, 3, 4, 5, 6, generator=generator))


DYNAMIC = {"src": {0: "batch", 2: "depth", 3: "height", 4: "width"},
           "flow": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
