"""SimCLR's InfoNCE logits: the main diagonal dropped with ``torch.eye(labels.shape[0], dtype=torch.bool)``.

Reduced from sthalles/SimCLR at 727cbae12ca5b34db1618c3ccac3e1dcebb0c117, simclr.py,
``SimCLR.info_nce_loss`` (lines 25-52): the labels of every view pair, the cosine similarity of
the normalized features, ``mask = torch.eye(labels.shape[0], dtype=torch.bool)`` (the size of
another tensor's first axis, booleans), both matrices without their diagonal
(``labels[~mask].view(labels.shape[0], -1)``), and the positives before the negatives, divided
by the temperature. Written here in our own words as a module over the features of all views,
the batch size taken from them (the original reads it from its arguments).
"""

import torch
import torch.nn.functional as F
from torch import nn


class InfoNCELogits(nn.Module):
    def __init__(self, n_views: int = 2, temperature: float = 0.07) -> None:
        super().__init__()
        self.n_views = n_views
        self.temperature = temperature

    def forward(self, features):
        batch_size = features.shape[0] // self.n_views
        labels = torch.cat([torch.arange(batch_size) for i in range(self.n_views)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        features = F.normalize(features, dim=1)
        similarity_matrix = torch.matmul(features, features.T)
        mask = torch.eye(labels.shape[0], dtype=torch.bool)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)
        logits = torch.cat([positives, negatives], dim=1)
        return logits / self.temperature


def build() -> nn.Module:
    return InfoNCELogits()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(6, 5, generator=generator),)


DYNAMIC = {"features": {0: "views_times_batch"}}
