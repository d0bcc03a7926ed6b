"""A tensor of sizes from a comprehension over a function's argument: a list of level sizes.

A free function (not a module) that scales normalised points to each level's pixel grid, called
with ``[f.shape[-2:] for f in feats]``: the pattern of multi-level samplers in detection and BEV
code (reference points times each level's (width, height)), written here in our own words. The
comprehension reads the sizes from items of a parameter, so what it builds is known to be sizes
only from the observed export.
"""

import torch
from torch import nn


def to_pixels(points, level_sizes):
    scale = torch.as_tensor([(size[1] - 1, size[0] - 1) for size in level_sizes], device=points.device)
    return points[:, :, None, :] * scale.to(points.dtype)


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2, 4))

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        points = torch.sigmoid(feats[-1].flatten(2).transpose(1, 2))
        return to_pixels(points, [f.shape[-2:] for f in feats])


def build() -> nn.Module:
    return Levels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
