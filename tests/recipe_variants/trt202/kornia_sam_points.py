"""kornia's port of SAM's point prompts: the clicks cast to the encoding's compute dtype before
the half-pixel shift (kornia's own change, so the shift survives bfloat16), a padding click
labelled -1, then SAM's ``= 0.0`` and three ``+=`` through (B, N) label masks, in a helper
method that ``forward`` calls.

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/models/sam/architecture/prompt_encoder.py:100-114 (``PromptEncoder._embed_points``:
``points = points.to(self.pe_layer._compute_dtype()) + 0.5``, the padding point and label,
``point_embedding = self.pe_layer.forward_with_coords(...)``, ``point_embedding[labels == -1] =
0.0`` and the three ``+=`` of ``self.not_a_point_embed.weight`` and
``self.point_embeddings[k].weight``), written here in our own words; the position layer is a
small stand-in and the compute dtype is float32.
"""

import torch
from torch import nn


class KorniaPoints(nn.Module):
    def __init__(self, dim: int = 6, size: int = 32) -> None:
        super().__init__()
        self.size = size
        self.register_buffer("freqs", torch.randn(2, dim // 2))
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, dim) for _ in range(2)])
        self.not_a_point_embed = nn.Embedding(1, dim)

    def _embed_points(self, points: torch.Tensor, labels: torch.Tensor, pad: bool) -> torch.Tensor:
        points = points.to(torch.float32) + 0.5
        if pad:
            padding_point = torch.zeros((points.shape[0], 1, 2), device=points.device)
            padding_label = -torch.ones((labels.shape[0], 1), device=labels.device)
            points = torch.cat([points, padding_point], dim=1)
            labels = torch.cat([labels, padding_label], dim=1)
        angles = (points / self.size) @ self.freqs
        point_embedding = torch.cat([angles.sin(), angles.cos()], dim=-1)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embeddings[0].weight
        point_embedding[labels == 1] += self.point_embeddings[1].weight
        return point_embedding

    def forward(self, points: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self._embed_points(points, labels, pad=True)


def build() -> nn.Module:
    return KorniaPoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    points = torch.rand(1, 4, 2, generator=generator) * 32
    labels = torch.randint(0, 2, (1, 4), generator=generator)
    return points, labels


DYNAMIC = {"points": {0: "batch", 1: "clicks"}, "labels": {0: "batch", 1: "clicks"}}
