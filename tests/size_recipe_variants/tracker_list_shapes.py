"""A tensor of sizes from a comprehension of ``list(src.shape[-2:])`` (a tracker's template levels).

Found in a public tracking source by the code index (``spatial_shapes = torch.tensor([list(src.shape[
-2:]) for src in temp_srcs], device=..., dtype=torch.long)``; index file id 6398472847, its
repository not named by the index), written here in our own words.
"""

import torch
from torch import nn


class Levels(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2))

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        spatial_shapes = torch.tensor([list(src.shape[-2:]) for src in feats], device=x.device, dtype=torch.long)
        valid = spatial_shapes[:, 0] * spatial_shapes[:, 1]
        flat = torch.cat([f.flatten(2).sum(-1) for f in feats], -1)
        return flat.view(x.shape[0], -1, 2) / valid[None, :, None].to(flat.dtype)


def build() -> nn.Module:
    return Levels()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
