"""The BEV resampler of "Predicting Semantic Map Representations from Images": a fixed grid of
ground-plane points, built in ``__init__``, is cast to the features' dtype and device in forward
with ``.to(features)``, then projected with the camera intrinsics and sampled.

Reduced from tom-roddick/mono-semantic-maps @ fe8e436e2d58ceb6d40a4ff5aa05859b2f109f23,
src/nn/resampler.py (``Resampler.forward``: ``self.grid = self.grid.to(features)``, the 2x2
intrinsics ``calib[:, [0, 2]][..., [0, 2]]``, ``u / z`` normalised, ``F.grid_sample``), written here
in our own words; the depth normalisation is simplified to a linear map of z.
"""

import torch
import torch.nn.functional as F
from torch import nn


def make_grid(resolution: float, extents: tuple[float, float, float, float]) -> torch.Tensor:
    x1, z1, x2, z2 = extents
    zz, xx = torch.meshgrid(torch.arange(z1, z2, resolution), torch.arange(x1, x2, resolution), indexing="ij")
    return torch.stack([xx, zz], dim=-1)


class Resampler(nn.Module):
    def __init__(self, resolution: float = 1.0, extents=(-4.0, 1.0, 4.0, 9.0)) -> None:
        super().__init__()
        self.near, self.far = extents[1], extents[3]
        self.grid = make_grid(resolution, extents)

    def forward(self, features, calib):
        self.grid = self.grid.to(features)
        calib = calib[:, [0, 2]][..., [0, 2]].view(-1, 1, 1, 2, 2)
        cam = torch.matmul(calib, self.grid.unsqueeze(-1)).squeeze(-1)
        u = cam[..., 0] / cam[..., 1]
        u = u / features.size(-1) * 2 - 1
        z = (cam[..., 1] - self.near) / (self.far - self.near) * 2 - 1
        coords = torch.stack([u, z], -1).clamp(-1.1, 1.1)
        return F.grid_sample(features, coords, align_corners=False)


def build() -> nn.Module:
    return Resampler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    features = torch.randn(1, 4, 8, 16, generator=generator)
    calib = torch.tensor([[[12.0, 0.0, 8.0], [0.0, 12.0, 4.0], [0.0, 0.0, 1.0]]])
    return features, calib + torch.rand(1, 3, 3, generator=generator) * 0.1


DYNAMIC = {"features": {0: "batch"}, "calib": {0: "batch"}}
