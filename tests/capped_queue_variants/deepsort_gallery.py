"""A track's appearance gallery appended and trimmed to a budget: DeepSORT's nearest-neighbour metric.

Reduced from nwojke/deep_sort @ f08cf1dc470eeb1cd2add1cbf077d95ac6c48aab,
deep_sort/nn_matching.py:137-153 (``partial_fit``: ``self.samples.setdefault(target, []).append(feature)``,
then ``self.samples[target] = self.samples[target][-self.budget:]``) and :78-96
(``_nn_cosine_distance``: one minus the dot product of the normalised samples with the detections'
features, the smallest over the samples), written here in our own words for one track whose
gallery is a list on the module; the feature is added before the distance so that the first frame
has a sample to compare with.
"""

import torch
import torch.nn.functional as F
from torch import nn


class TrackGallery(nn.Module):
    def __init__(self, dims: int = 8, budget: int = 3) -> None:
        super().__init__()
        self.embed = nn.Linear(dims, dims)
        self.budget = budget
        self.samples = []

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        embedded = F.normalize(self.embed(features), dim=1)
        self.samples.append(embedded[0].detach())
        self.samples = self.samples[-self.budget:]
        # cosine distance of every detection to every kept sample; the nearest sample counts
        distances = 1.0 - torch.stack(self.samples) @ embedded.T
        return distances.min(dim=0).values


def build() -> nn.Module:
    return TrackGallery().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 8, generator=generator),)
