"""PyG's ``KNNIndex.search`` keeps the top k of each query's candidates after excluding some:
``count = notin.view(-1, query_k).sum(dim=1)`` counts the candidates left per query, and
``torch.arange(count.sum(), device=...)`` numbers all of them before the per-query offsets are
subtracted (``batch_arange - cum_count[batch]``) and the first k of each query kept.

Reduced from pyg-team/pytorch_geometric at commit 5c6461b2305ad068a6d61165b3c55852a11aaa41,
torch_geometric/nn/pool/knn.py, ``KNNIndex.search`` (lines 163-184, the ``exclude_links``
branch). Written here in our own words: the FAISS search is left out (the candidates' scores and
exclusion mask are inputs), PyG's ``cumsum`` (a leading 0) is written out, and the kept scores
are returned. ``count`` holds counts per query, not 0/1, so its sum is no count of its non-zero
entries: the rule reports the range and leaves it (the count-from-``nonzero`` fix would number
fewer candidates than there are).
"""

import torch
from torch import nn


class KnnExclude(nn.Module):
    def __init__(self, k: int = 2) -> None:
        super().__init__()
        self.k = k

    def forward(self, score: torch.Tensor, notin: torch.Tensor) -> torch.Tensor:
        query_k = score.shape[1]
        score = score.view(-1)[notin.view(-1)]
        count = notin.view(-1, query_k).sum(dim=1)
        cum_count = torch.cat([count.new_zeros(1), count.cumsum(0)])
        batch = torch.arange(count.numel(), device=count.device)
        batch = batch.repeat_interleave(count)
        batch_arange = torch.arange(count.sum(), device=count.device)
        batch_arange = batch_arange - cum_count[batch]
        return score[batch_arange < self.k]


def build() -> nn.Module:
    return KnnExclude()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(3, 4, generator=generator), torch.tensor(
        [[True, False, True, True], [False, False, True, False], [True, True, True, True]])


DYNAMIC = {"score": {0: "queries"}, "notin": {0: "queries"}}
