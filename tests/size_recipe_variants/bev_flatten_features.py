"""A tensor of sizes from a comprehension of ``feat.shape[-2:]`` (a BEV spatial cross attention).

Found in a public BEV source by the code index (``flatten_features``: ``spatial_shapes =
torch.tensor([feat.shape[-2:] for feat in mlvl_features], dtype=torch.long, device=...)``, then
``level_start_index`` from ``spatial_shapes.prod(1).cumsum(0)``; index file id 21211125226, its
repository not named by the index), written here in our own words for one camera.
"""

import torch
from torch import nn


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2))

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        spatial_shapes = torch.tensor([feat.shape[-2:] for feat in feats], dtype=torch.long, device=feats[0].device)
        level_start_index = torch.cat([spatial_shapes.new_zeros((1,)), spatial_shapes.prod(1).cumsum(0)[:-1]])
        flat = torch.cat([f.flatten(2) for f in feats], -1)
        return flat[..., level_start_index] * spatial_shapes.sum().to(flat.dtype)


def build() -> nn.Module:
    return Levels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
