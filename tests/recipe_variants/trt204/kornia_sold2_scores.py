"""kornia's SOLD2 line matcher: the similarity of every sampled point of the first image's
lines to every point of the second's is set to -1 where a point fell outside its image, first
through a mask over the rows (``scores[~valid_points1.flatten()] = -1``), then through a mask
over the columns (``scores[:, ~valid_points2.flatten()] = -1``).

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/feature/sold2/sold2.py:234-237 (``WunschLineMatcher.forward``: ``scores = desc1.t() @
desc2`` and the two fills), written here in our own words; the descriptors come in sampled
already, and the validity masks are computed from the points' coordinates.
"""

import torch
from torch import nn


class LineScores(nn.Module):
    def forward(self, desc1: torch.Tensor, desc2: torch.Tensor, points1: torch.Tensor,
                points2: torch.Tensor) -> torch.Tensor:
        valid_points1 = (points1 >= 0).all(-1)
        valid_points2 = (points2 >= 0).all(-1)
        scores = desc1.t() @ desc2
        scores[~valid_points1.flatten()] = -1
        scores[:, ~valid_points2.flatten()] = -1
        return scores


def build() -> nn.Module:
    return LineScores()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    desc1 = torch.randn(4, 6, generator=generator)
    desc2 = torch.randn(4, 5, generator=generator)
    points1 = torch.randn(2, 3, 2, generator=generator)
    points2 = torch.randn(5, 2, generator=generator)
    return desc1, desc2, points1, points2


DYNAMIC = {"desc1": {1: "n1"}, "desc2": {1: "n2"}, "points1": {0: "lines1"}, "points2": {0: "n2"}}
