"""Keypoints to a ``grid_sample`` grid, reshaped by their count: kornia's SOLD2 line matcher.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/sold2/sold2.py:348-371
(``keypoints_to_grid(keypoints: torch.Tensor, img_size)``: ``n_points = len(keypoints)``, then
``(keypoints * 2.0 / torch.tensor(img_size) - 1.0)[:, [1, 0]].view(-1, n_points, 1, 2)``; it is
called on the sampled line points before ``F.grid_sample`` of the descriptor map, lines 226-227).
Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def keypoints_to_grid(keypoints: torch.Tensor, img_size) -> torch.Tensor:
    n_points = len(keypoints)
    scaled = keypoints * 2.0 / torch.tensor(img_size, device=keypoints.device) - 1.0
    return scaled[:, [1, 0]].view(-1, n_points, 1, 2)


class LineDescriptor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, 4, 1)

    def forward(self, image, points):
        desc = self.proj(image)
        grid = keypoints_to_grid(points, (16, 16))
        return F.grid_sample(desc, grid, align_corners=False).squeeze(-1)


def build() -> nn.Module:
    return LineDescriptor()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 3, 8, 8, generator=generator), torch.rand(6, 2, generator=generator) * 16


DYNAMIC = {"points": {0: "n"}}
