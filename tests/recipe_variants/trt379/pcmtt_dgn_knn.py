"""PCMTT's DGCNN-style graph features: the k points ranked by distance from each point, gathered.

Reduced from SP-FA/PCMTT, ``model/DGN/knn.py``: ``knn(x, k)`` transposes the points ``[B, C, N]`` to ``[B, N, C]``,
computes ``distance = torch.cdist(xT, xT)`` (line 11) and takes ``distance.topk(k=k, dim=-1)`` (largest first, as
written there); ``get_graph_feature`` gathers those points. Kept: both functions' operations. Reduced: the output
is the gathered points' mean distance to their centre point (the edge feature's scale), so the ranking and its
values both reach it; points of a tracked object a few metres across, 40 metres from the sensor, points the
dynamic axis. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "points"}}


def knn(x, k):
    xT = x.transpose(2, 1)  # [B, N, C]
    distance = torch.cdist(xT, xT)  # [B, N, N]
    values, idx = distance.topk(k=k, dim=-1)  # [B, N, k]
    return values, idx


class Model(nn.Module):
    def __init__(self, k: int = 4) -> None:
        super().__init__()
        self.k = k

    def forward(self, x):
        values, idx = knn(x, self.k)
        return values.mean(-1)


def build():
    return Model().eval()


def make(points: int, generator=None):
    cloud = torch.randn(1, 3, points, generator=generator) * 0.8
    return (cloud + torch.tensor([40.0, 5.0, -1.5]).view(1, 3, 1),)


def inputs(generator=None):
    return make(16, torch.Generator().manual_seed(0) if generator is None else generator)
