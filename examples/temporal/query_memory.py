"""A tracker whose query memory grows by this frame's queries, then is capped to the newest.

Reduced from StreamPETR's memory queue (``pre_update_memory``/``post_update_memory``): the
memory starts as zeros on the first frame of a scene, is faded by ``prev_exists``, attended to
by the current queries, and the top queries of this frame are pushed in front of it before it
is cut back to ``memory_len``. Here the two helpers are inlined into forward.
"""

import torch
from torch import nn


class QueryMemory(nn.Module):
    def __init__(self, dims: int = 8, memory_len: int = 6, keep: int = 2) -> None:
        super().__init__()
        self.memory_len = memory_len
        self.keep = keep
        self.query = nn.Linear(dims, dims)
        self.score = nn.Linear(dims, 1)
        self.reset_memory()

    def reset_memory(self) -> None:
        self.memory_embedding = None

    def forward(self, queries: torch.Tensor, prev_exists: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, _, dims = queries.shape
        if self.memory_embedding is None:
            memory = queries.new_zeros(batch, self.memory_len, dims)
        else:
            memory = self.memory_embedding * prev_exists.view(batch, 1, 1)
        attention = torch.softmax(self.query(queries) @ memory.transpose(1, 2), dim=-1)
        out = queries + attention @ memory
        scores = self.score(out).squeeze(-1)
        top = torch.topk(scores, self.keep, dim=1).indices
        kept = torch.gather(out, 1, top.unsqueeze(-1).expand(-1, -1, dims))
        # push this frame's best queries in front, keep the newest memory_len
        self.memory_embedding = torch.cat([kept, memory], dim=1)[:, :self.memory_len].detach()
        return out, scores


def build() -> nn.Module:
    return QueryMemory().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator), torch.ones(2))
