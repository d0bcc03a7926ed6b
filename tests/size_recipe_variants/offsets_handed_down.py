"""A tensor of sizes from a comprehension over a list of level sizes handed down by the caller.

The form transformers' Mask2Former and Deformable DETR use in their multi-scale deformable
attention (``torch.tensor([[shape[1], shape[0]] for shape in spatial_shapes_list], dtype=torch.long,
device=...)``, ``modeling_mask2former.py:1000`` in transformers 5.24.0), written here in our own
words: the encoder computes the list of (height, width) pairs from its feature maps and passes it
down to the attention, whose own code cannot see that the list holds sizes.
"""

import torch
from torch import nn


class Sampling(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.offsets = nn.Linear(2, 2)

    def forward(self, queries, spatial_shapes_list):
        offset_normalizer = torch.tensor(
            [[shape[1], shape[0]] for shape in spatial_shapes_list],
            dtype=torch.long,
            device=queries.device,
        )
        return self.offsets(queries)[:, :, None, :] / offset_normalizer[None, None, :, :]


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.levels = nn.ModuleList(nn.Conv2d(3, 2, 3, stride=s, padding=1) for s in (1, 2))
        self.sampling = Sampling()

    def forward(self, x):
        feats = [level(x) for level in self.levels]
        spatial_shapes_list = [(f.shape[2], f.shape[3]) for f in feats]
        queries = torch.cat([f.flatten(2).transpose(1, 2) for f in feats], 1)
        return self.sampling(queries, spatial_shapes_list)


def build() -> nn.Module:
    return Encoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, generator=generator),)


DYNAMIC = {"x": {2: "h", 3: "w"}}
