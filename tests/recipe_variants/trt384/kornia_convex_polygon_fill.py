"""kornia's convex polygon fill: the left and right edge of each polygon on every scanline, then the filled region.

Reduced from kornia/kornia @ b4f5a78a13891c7ac4c1cd9695941380273e981d, kornia/image/draw.py: ``_get_convex_edges``
closes the polygon, splits it into edges, intersects every edge with every scanline ``ys = torch.arange(h)``, keeps
an edge on the scanlines between its end points, which it writes as ``valid_edges = (y_start <= ys) &
(ys <= y_end)`` and then, for the edges that go up, ``valid_edges |= (y_start >= ys).logical_and(ys >= y_end)``
(line 316), and takes the smallest and largest x of the valid edges; ``draw_convex_polygon`` fills the pixels
between them with a colour. Kept: the edge split, the scanline intersections, the two validity tests joined by
the augmented or, the masked minimum and maximum and the fill. Reduced: the polygon is always closed here (the
original's ``torch.allclose`` check of its first and last points is a Python decision on the values), one colour
for every polygon. Written here in our own words.
"""

from typing import Tuple

import torch
from torch import Tensor, nn

DYNAMIC = {"images": {0: "batch"}, "polygons": {0: "batch", 1: "points"}}
#: The line of the augmented or (the rule's finding).
CALL = ("valid_edges |= (y_start[..., None, :] >= ys[..., :, None]).logical_and(ys[..., :, None] >= "
        "y_end[..., None, :])")


def _get_convex_edges(polygon: Tensor, h: int, w: int) -> Tuple[Tensor, Tensor]:
    dtype = polygon.dtype
    polygon = torch.cat((polygon, polygon[..., :1, :]), dim=-2)  # (B, N+1, 2)

    x_start, y_start = polygon[..., :-1, 0], polygon[..., :-1, 1]
    x_end, y_end = polygon[..., 1:, 0], polygon[..., 1:, 1]

    ys = torch.arange(h, device=polygon.device, dtype=dtype)
    dx = ((x_end - x_start) / (y_end - y_start + 1e-12)).clamp(-w, w)
    xs = (ys[..., :, None] - y_start[..., None, :]) * dx[..., None, :] + x_start[..., None, :]

    valid_edges = (y_start[..., None, :] <= ys[..., :, None]).logical_and(ys[..., :, None] <= y_end[..., None, :])
    valid_edges |= (y_start[..., None, :] >= ys[..., :, None]).logical_and(ys[..., :, None] >= y_end[..., None, :])
    x_left_edges = xs.clone()
    x_left_edges[~valid_edges] = w
    x_right_edges = xs.clone()
    x_right_edges[~valid_edges] = -1

    x_left = x_left_edges.min(dim=-1).values
    x_right = x_right_edges.max(dim=-1).values
    return x_left, x_right


class ConvexPolygonFill(nn.Module):
    def __init__(self, height: int = 12, width: int = 10) -> None:
        super().__init__()
        self.height, self.width = height, width
        self.register_buffer("colour", torch.tensor([1.0, 0.5, 0.25]))

    def forward(self, images, polygons):
        x_left, x_right = _get_convex_edges(polygons, self.height, self.width)
        ws = torch.arange(self.width, device=images.device, dtype=images.dtype)[None, None, :]
        fill_region = (ws >= x_left[..., :, None]) & (ws <= x_right[..., :, None])
        return (~fill_region[:, None]) * images + fill_region[:, None] * self.colour[None, :, None, None]


def build() -> nn.Module:
    return ConvexPolygonFill().eval()


def inputs(generator: torch.Generator, batch: int = 2, points: int = 5) -> tuple[torch.Tensor, ...]:
    """Images of 12 x 10 pixels and convex polygons: points on a circle around a centre in the image, in order."""
    images = torch.rand(batch, 3, 12, 10, generator=generator)
    angles = torch.sort(torch.rand(batch, points, generator=generator) * 6.283, dim=-1).values
    centre = torch.rand(batch, 1, 2, generator=generator) * torch.tensor([6.0, 8.0]) + 2.0
    radius = torch.rand(batch, 1, 1, generator=generator) * 3.0 + 1.0
    return images, centre + radius * torch.stack([angles.cos(), angles.sin()], -1)
