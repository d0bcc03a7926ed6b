"""A polygon closed by appending its first vertex unless it is closed already: kornia's polygon fill.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/image/draw.py:372-374 (``draw_polygon`` /
``_get_convex_edges``: ``if not torch.allclose(polygon[..., -1, :], polygon[..., 0, :]): polygon =
torch.cat((polygon, polygon[..., :1, :]), dim=-2)``, then the edges from consecutive vertices).
Written here in our own words: the output is each edge's length.
"""

import torch
from torch import nn


class PolygonEdges(nn.Module):
    def forward(self, polygon):
        if not torch.allclose(polygon[..., -1, :], polygon[..., 0, :]):
            polygon = torch.cat((polygon, polygon[..., :1, :]), dim=-2)
        start, end = polygon[..., :-1, :], polygon[..., 1:, :]
        return (end - start).norm(dim=-1)


def build() -> nn.Module:
    return PolygonEdges()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 2, generator=generator),)


DYNAMIC = {"polygon": {1: "vertices"}}
