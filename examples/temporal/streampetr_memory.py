"""StreamPETR's memory queue in the shape of the original head (streampetr_head.py).

Kept as the original writes it: the memory is updated in two helpers that forward calls
(``pre_update_memory``, ``post_update_memory``), and the propagated reference points are
written in place through a slice. ``trtcodemod lift-state`` refuses it at those lines;
``query_memory.py`` is the same model with the helpers inlined, which it lifts.
"""

import torch
from torch import nn


def memory_refresh(memory: torch.Tensor, prev_exists: torch.Tensor) -> torch.Tensor:
    """Zero the memory of the samples that start a new scene."""
    return memory * prev_exists.view(-1, *([1] * (memory.dim() - 1)))


class StreamMemoryHead(nn.Module):
    def __init__(self, dims: int = 8, memory_len: int = 6, topk: int = 2, propagated: int = 2) -> None:
        super().__init__()
        self.memory_len, self.topk, self.propagated = memory_len, topk, propagated
        self.query = nn.Linear(dims, dims)
        self.score = nn.Linear(dims, 1)
        self.pseudo_reference_points = nn.Parameter(torch.rand(propagated, 3))
        self.reset_memory()

    def reset_memory(self) -> None:
        self.memory_embedding = None
        self.memory_reference_point = None

    def pre_update_memory(self, queries: torch.Tensor, prev_exists: torch.Tensor) -> None:
        batch, _, dims = queries.shape
        if self.memory_embedding is None:
            self.memory_embedding = queries.new_zeros(batch, self.memory_len, dims)
            self.memory_reference_point = queries.new_zeros(batch, self.memory_len, 3)
        else:
            self.memory_embedding = memory_refresh(self.memory_embedding, prev_exists)
            self.memory_reference_point = memory_refresh(self.memory_reference_point, prev_exists)
        # a new scene starts from the learned pseudo points
        self.memory_reference_point[:, :self.propagated] = self.memory_reference_point[:, :self.propagated] \
            + (1 - prev_exists).view(batch, 1, 1) * self.pseudo_reference_points

    def post_update_memory(self, out: torch.Tensor, reference: torch.Tensor, scores: torch.Tensor) -> None:
        top = torch.topk(scores, self.topk, dim=1).indices.unsqueeze(-1)
        kept = torch.gather(out, 1, top.expand(-1, -1, out.shape[-1])).detach()
        kept_reference = torch.gather(reference, 1, top.expand(-1, -1, 3)).detach()
        self.memory_embedding = torch.cat([kept, self.memory_embedding], dim=1)[:, :self.memory_len]
        self.memory_reference_point = torch.cat([kept_reference, self.memory_reference_point], dim=1)[:, :self.memory_len]

    def forward(self, queries: torch.Tensor, reference: torch.Tensor,
                prev_exists: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.pre_update_memory(queries, prev_exists)
        attention = torch.softmax(self.query(queries) @ self.memory_embedding.transpose(1, 2), dim=-1)
        out = queries + attention @ self.memory_embedding
        scores = self.score(out).squeeze(-1)
        self.post_update_memory(out, reference, scores)
        return out, scores


def build() -> nn.Module:
    return StreamMemoryHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator), torch.rand(2, 5, 3, generator=generator), torch.ones(2))
