"""anomalib's PatchCore nearest neighbours: each test embedding's k smallest distances to the memory bank.

Reduced from openvinotoolkit/anomalib (the 2021 PatchCore), ``anomalib/models/patchcore/utils/sampling/
nearest_neighbors.py``: ``NearestNeighbors.kneighbors(test_features)`` returns
``torch.cdist(test_features, self._fit_x, p=2.0)`` (line 62) ranked by ``topk(k=self.n_neighbors, largest=False,
dim=1)``; the smallest distance is the patch's anomaly score. Kept: the buffer memory bank, ``p=2.0``, the topk.
Reduced: a linear projection stands in for the backbone's pooled patch features (positive, as after a ReLU), the
bank is 20 embeddings of 32 features, the test patches are a dynamic axis, and one test patch is a bank entry
itself up to 1e-3 (a normal patch seen in training: distances of 1e-3 in eager mode, which the matrix-product form's
rounding of norms near 25 swamps). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"patches": {0: "patches"}}


class NearestNeighbors(nn.Module):
    def __init__(self, n_neighbors: int, bank: torch.Tensor) -> None:
        super().__init__()
        self.n_neighbors = n_neighbors
        self.register_buffer("_fit_x", bank)

    def kneighbors(self, test_features):
        distances = torch.cdist(test_features, self._fit_x, p=2.0)  # euclidean norm
        return distances.topk(k=self.n_neighbors, largest=False, dim=1)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(7)
        self.bank = torch.relu(torch.randn(20, 32, generator=generator)) + 4.0
        self.nn = NearestNeighbors(3, self.bank.clone())

    def forward(self, patches):
        distances, _ = self.nn.kneighbors(patches)
        return distances


def build():
    return Model().eval()


def make(patches: int, generator=None):
    test = torch.relu(torch.randn(patches, 32, generator=generator)) + 4.0
    bank = build().bank
    near = min(patches, 3)
    test[:near] = bank[:near] + 1e-3 * torch.randn(near, 32, generator=generator)
    return (test,)


def inputs(generator=None):
    return make(8, torch.Generator().manual_seed(0) if generator is None else generator)
