"""SAM 3's tracker prompt encoder: when no box is given, the point prompts get one padding point
(zero coordinates) and its label ``-1`` before they are embedded, written with the full module
path and every keyword: ``torch.nn.functional.pad(points, (0, 0, 0, 1), mode="constant",
value=0)`` pads the second-to-last axis only; the labels are padded on the last axis with
``value=-1``, a non-zero fill the zero-pad rule must leave alone (TRT502 reports it for TensorRT
before 8.2).

Reduced from huggingface/transformers at tag v5.24.0 (the PyPI release the zoo unpacks),
src/transformers/models/sam3_tracker/modeling_sam3_tracker.py:210-233
(``Sam3TrackerPromptEncoder._embed_points``: ``points + 0.5``, the two pads at :215-216, the
positional embedding of the coordinates, ``torch.where(labels[..., None] == -1,
not_a_point_embed.weight, ...)`` and the label embeddings added where ``labels >= 0``), written
here in our own words with a linear positional embedding instead of the random Fourier one.
"""

import torch
from torch import Tensor, nn


class EmbedPoints(nn.Module):
    def __init__(self, hidden_size: int = 6, image_size: int = 16) -> None:
        super().__init__()
        self.image_size = image_size
        self.shared_embedding = nn.Linear(2, hidden_size)
        self.point_embed = nn.Embedding(4, hidden_size)
        self.not_a_point_embed = nn.Embedding(1, hidden_size)

    def forward(self, points: Tensor, labels: Tensor) -> Tensor:
        points = points + 0.5
        points = torch.nn.functional.pad(points, (0, 0, 0, 1), mode="constant", value=0)
        labels = torch.nn.functional.pad(labels, (0, 1), mode="constant", value=-1)
        point_embedding = self.shared_embedding(points / self.image_size)
        point_embedding = torch.where(labels[..., None] == -1, self.not_a_point_embed.weight, point_embedding)
        return point_embedding + self.point_embed(labels.clamp(min=0)) * (labels >= 0).unsqueeze(-1)


def build() -> nn.Module:
    return EmbedPoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    points = torch.rand(2, 1, 3, 2, generator=generator) * 16  # batch, objects, points, (x, y)
    labels = torch.randint(0, 2, (2, 1, 3), generator=generator)
    return points, labels


DYNAMIC = {"points": {0: "batch", 2: "points"}, "labels": {0: "batch", 2: "points"}}
