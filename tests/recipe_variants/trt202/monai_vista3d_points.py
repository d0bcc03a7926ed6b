"""MONAI VISTA3D's point head: 3-D clicks embedded, zeroed and shifted for label -1, and labels
2 and 3 (clicks of a "special" class) given the sum of two learned vectors
(``+= self.point_embeddings[0].weight + self.special_class_embed.weight``).

Reduced from Project-MONAI/MONAI at tag 1.6.1 (the PyPI release the second zoo unpacks),
monai/networks/nets/vista3d.py:539-546 (``PointMappingSAM.forward``: ``points = point_coords +
0.5``, ``point_embedding = self.pe_layer.forward_with_coords(points, out_shape)``,
``point_embedding[point_labels == -1] = 0.0``, ``... += self.not_a_point_embed.weight``, the
labels 0 and 1 adding ``self.point_embeddings[k].weight``, the labels 2 and 3 adding
``self.point_embeddings[k - 2].weight + self.special_class_embed.weight``), written here in our
own words; the feature downsampling, the two-way transformer and the class prompts are left out,
and the 3-D position layer is a small stand-in.
"""

import torch
from torch import nn


class Vista3dPoints(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.proj = nn.Linear(3, dim)
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, dim), nn.Embedding(1, dim)])
        self.not_a_point_embed = nn.Embedding(1, dim)
        self.special_class_embed = nn.Embedding(1, dim)

    def forward(self, point_coords: torch.Tensor, point_labels: torch.Tensor) -> torch.Tensor:
        points = point_coords + 0.5
        point_embedding = torch.sin(self.proj(points / 32.0))
        point_embedding[point_labels == -1] = 0.0
        point_embedding[point_labels == -1] += self.not_a_point_embed.weight
        point_embedding[point_labels == 0] += self.point_embeddings[0].weight
        point_embedding[point_labels == 1] += self.point_embeddings[1].weight
        point_embedding[point_labels == 2] += self.point_embeddings[0].weight + self.special_class_embed.weight
        point_embedding[point_labels == 3] += self.point_embeddings[1].weight + self.special_class_embed.weight
        return point_embedding


def build() -> nn.Module:
    return Vista3dPoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    coords = torch.rand(1, 5, 3, generator=generator) * 32
    labels = torch.tensor([[-1, 0, 1, 2, 3]])
    return coords, labels


DYNAMIC = {"point_coords": {0: "batch", 1: "clicks"}, "point_labels": {0: "batch", 1: "clicks"}}
