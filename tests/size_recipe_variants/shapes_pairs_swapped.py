"""A tensor of sizes from a comprehension: (width, height) pairs of a list of level shapes.

The form the issue reports from a held-out real detector (``torch.tensor([[s[1], s[0]] for s in
shapes_list])``, an offset normaliser), written here in our own words; the list of level shapes is
itself a comprehension of ``f.shape[-2:]``.
"""

import torch
from torch import nn


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2))

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        shapes_list = [f.shape[-2:] for f in feats]
        normalizer = torch.tensor([[s[1], s[0]] for s in shapes_list])
        flat = torch.cat([f.flatten(2).mean(-1) for f in feats], -1)
        return flat.view(x.shape[0], -1, 2) / normalizer[None].to(flat.dtype)


def build() -> nn.Module:
    return Levels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
