"""RAFT's optical flow, warm-started from the previous frame's flow: ``flow_init`` is an optional
forward input, added to the target coordinates only when the caller passes one.

Reduced from princeton-vl/RAFT at commit 2888e15a51fa41140771d3f498ed8023cff098d1,
core/raft.py:86-142 (``RAFT.forward(self, image1, image2, iters=12, flow_init=None, ...)``): the
images scaled to [-1, 1], feature and context encoders, two coordinate grids from
``initialize_flow``, ``if flow_init is not None:`` adding it to the second grid, then ``iters``
refinement steps that each read the correlation at the current coordinates and add a predicted
delta; the demo's video loop (``evaluate.py``, ``create_sintel_submission`` with ``warm_start``)
passes the previous pair's forward-projected flow. Written here in our own words at full
resolution: the correlation lookup is a ``grid_sample`` of the second frame's features dotted
with the first's, the update block one convolution, two iterations, and the flow of the last
iteration is the output.
"""

import torch
import torch.nn.functional as F
from torch import nn


class WarmStartFlow(nn.Module):
    def __init__(self, dims: int = 4, iters: int = 2) -> None:
        super().__init__()
        self.iters = iters
        self.fnet = nn.Conv2d(3, dims, 3, padding=1)
        self.cnet = nn.Conv2d(3, dims, 3, padding=1)
        self.update = nn.Conv2d(dims + 3, 2, 3, padding=1)

    def initialize_flow(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Pixel coordinates (x, y) of every position, twice: where flow starts and where it points."""
        n, _, h, w = image.shape
        ys, xs = torch.meshgrid(torch.arange(h, dtype=image.dtype), torch.arange(w, dtype=image.dtype),
                                indexing="ij")
        coords = torch.stack([xs, ys], 0)[None].expand(n, -1, -1, -1)
        return coords, coords.clone()

    def lookup(self, fmap1: torch.Tensor, fmap2: torch.Tensor, coords: torch.Tensor) -> torch.Tensor:
        """The correlation of each pixel's features with the second frame's at its target (the grid
        normalised as core/utils/utils.py's ``bilinear_sampler`` does)."""
        h, w = fmap2.shape[-2:]
        grid = torch.stack([2 * coords[:, 0] / (w - 1) - 1, 2 * coords[:, 1] / (h - 1) - 1], -1)
        sampled = F.grid_sample(fmap2, grid, align_corners=True)
        return (fmap1 * sampled).sum(1, keepdim=True)

    def forward(self, image1: torch.Tensor, image2: torch.Tensor, flow_init=None) -> torch.Tensor:
        image1 = 2 * (image1 / 255.0) - 1.0
        image2 = 2 * (image2 / 255.0) - 1.0
        fmap1, fmap2 = self.fnet(image1), self.fnet(image2)
        net = torch.tanh(self.cnet(image1))
        coords0, coords1 = self.initialize_flow(image1)
        if flow_init is not None:
            coords1 = coords1 + flow_init
        for _ in range(self.iters):
            coords1 = coords1.detach()
            corr = self.lookup(fmap1, fmap2, coords1)
            flow = coords1 - coords0
            coords1 = coords1 + self.update(torch.cat([net, corr, flow], 1))
        return coords1 - coords0


def build() -> nn.Module:
    return WarmStartFlow().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A later pair of the video: the previous flow given (the lift takes its shape from it).
    return (torch.rand(1, 3, 6, 8, generator=generator) * 255, torch.rand(1, 3, 6, 8, generator=generator) * 255,
            torch.randn(1, 2, 6, 8, generator=generator))


DYNAMIC: dict = {}
