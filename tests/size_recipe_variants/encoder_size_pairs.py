"""A tensor of sizes from a comprehension of ``(f.size(2), f.size(3))`` tuples (a DETR encoder).

Found in a public detector source by the code index (``spatial_shapes = torch.tensor([(f.size(2),
f.size(3)) for f in enc_feats], device=p3.device, dtype=torch.long)``, then the level start index;
index file id 35068033779, its repository not named by the index), written here in our own words.
"""

import torch
from torch import nn


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2))

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        spatial_shapes = torch.tensor([(f.size(2), f.size(3)) for f in feats], device=x.device, dtype=torch.long)
        starts = torch.cat([spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]])
        flat = torch.cat([f.flatten(2) for f in feats], -1)
        return flat[..., starts] + starts.to(flat.dtype)


def build() -> nn.Module:
    return Levels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
