"""DETR's learned position embedding: column and row embeddings repeated over the other axis.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/detr/modeling_detr.py,
``DetrLearnedPositionEmbedding.forward`` (lines 371-398): the column embeddings of ``arange(width)``
and the row embeddings of ``arange(height)`` are joined as
``torch.cat([x_emb.unsqueeze(0).repeat(height, 1, 1), y_emb.unsqueeze(1).repeat(1, width, 1)], dim=-1)``
(line 394), moved to channels first and repeated over the batch. Written here in our own words as
a module over the feature map (the original receives its shape; its lru cache is left out). One
line holds both axes: the rule took the ``unsqueeze(0)`` half before, not the ``unsqueeze(1)`` one.
The batch repeat is a separate statement (``pos = pos.unsqueeze(0)`` then
``pos = pos.repeat(shape[0], 1, 1, 1)``): the rule reads one expression, so it stays a repeat.
"""

import torch
from torch import nn


class LearnedPosition(nn.Module):
    def __init__(self, embedding_dim: int = 4) -> None:
        super().__init__()
        self.row_embeddings = nn.Embedding(50, embedding_dim)
        self.column_embeddings = nn.Embedding(50, embedding_dim)

    def forward(self, pixel_values):
        height, width = pixel_values.shape[-2:]
        width_values = torch.arange(width, device=pixel_values.device)
        height_values = torch.arange(height, device=pixel_values.device)
        x_emb = self.column_embeddings(width_values)
        y_emb = self.row_embeddings(height_values)
        pos = torch.cat([x_emb.unsqueeze(0).repeat(height, 1, 1), y_emb.unsqueeze(1).repeat(1, width, 1)], dim=-1)
        pos = pos.permute(2, 0, 1)
        pos = pos.unsqueeze(0)
        pos = pos.repeat(pixel_values.shape[0], 1, 1, 1)
        return pos + pixel_values


def build() -> nn.Module:
    return LearnedPosition()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 3, 5, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
