"""A prototypical network's scores: minus the distance from each query embedding to each class prototype.

Reduced from Ladun/custom_sketch_classification, ``classifier/few_shot/model.py``: ``PrototypicalNet.forward``
averages the support embeddings of each label into a prototype and returns ``-torch.cdist(z_query, z_proto)``
(``dists = torch.cdist(z_query, z_proto)``, line 33, then ``scores = -dists``). Kept: the distance and its
negation. Reduced: a linear backbone with a ReLU, the prototypes given as a second input (the support set's
per-label means, computed by the caller), queries and prototypes both dynamic axes. Embeddings after a ReLU share
a large positive mean, so the matrix-product form's rounding of ``|q|^2 + |p|^2 - 2 q.p`` is large beside the
distances themselves. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"queries": {0: "queries"}, "prototypes": {0: "ways"}}


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 24), nn.ReLU())
        with torch.no_grad():
            self.backbone[0].bias.add_(6.0)

    def forward(self, queries, prototypes):
        z_query = self.backbone(queries)
        z_proto = self.backbone(prototypes)
        dists = torch.cdist(z_query, z_proto)
        scores = -dists
        return scores


def build():
    torch.manual_seed(0)
    return Model().eval()


def make(queries: int, ways: int, generator=None):
    q = torch.randn(queries, 16, generator=generator)
    p = torch.randn(ways, 16, generator=generator)
    k = min(queries, ways)
    q[:k] = p[:k]  # queries that are their class's prototype
    return q, p


def inputs(generator=None):
    return make(10, 5, torch.Generator().manual_seed(0) if generator is None else generator)
