"""SAM 2's point prompts: a Fourier embedding of the clicks, zeroed where the label says "no
point" (``= 0.0``, TRT204's), then a learned vector added per label through a (B, N) mask over the
(B, N, C) embeddings (``+=``, five times: labels -1 to 3), and a padding click labelled -1.

Reduced from facebookresearch/sam2 @ 0c5f8c54321b08c451d7680e12892f8017f819ca,
sam2/modeling/sam/prompt_encoder.py:79-101 (``PromptEncoder._embed_points``: the shift to pixel
centres, the padding point and label, ``point_embedding[labels == -1] = 0.0``,
``point_embedding[labels == -1] += self.not_a_point_embed.weight``, then
``point_embedding[labels == k] += self.point_embeddings[k].weight`` for k = 0..3), written here in
our own words; the random-Fourier position layer is a small stand-in of the same shape. SAM 2's
own update of 2024-12-11 (393ae33) replaced these lines with ``torch.where`` over
``(labels == k).unsqueeze(-1)``, the form TRT202 writes.
"""

import math

import torch
from torch import nn


class PointPrompts(nn.Module):
    def __init__(self, dim: int = 8, size: int = 64) -> None:
        super().__init__()
        self.size = size
        self.register_buffer("freqs", torch.randn(2, dim // 2))
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, dim) for _ in range(4)])
        self.not_a_point_embed = nn.Embedding(1, dim)

    def encode(self, coords: torch.Tensor) -> torch.Tensor:
        unit = 2 * (coords / self.size) - 1
        angles = 2 * math.pi * (unit @ self.freqs)
        return torch.cat([angles.sin(), angles.cos()], dim=-1)

    def forward(self, points: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        points = points + 0.5
        padding_point = torch.zeros((points.shape[0], 1, 2), device=points.device)
        padding_label = -torch.ones((labels.shape[0], 1), device=labels.device)
        points = torch.cat([points, padding_point], dim=1)
        labels = torch.cat([labels, padding_label], dim=1)
        point_embedding = self.encode(points)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embeddings[0].weight
        point_embedding[labels == 1] += self.point_embeddings[1].weight
        point_embedding[labels == 2] += self.point_embeddings[2].weight
        point_embedding[labels == 3] += self.point_embeddings[3].weight
        return point_embedding


def build() -> nn.Module:
    return PointPrompts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    points = torch.rand(2, 5, 2, generator=generator) * 64
    labels = torch.randint(-1, 4, (2, 5), generator=generator).float()
    return points, labels


DYNAMIC = {"points": {0: "batch", 1: "clicks"}, "labels": {0: "batch", 1: "clicks"}}
