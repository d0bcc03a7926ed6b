"""StreamPETR's object-query memory: zeros when a scene starts (``reset_memory`` sets it to None),
else aged by the frame's time step and cleared where the sample has no previous frame; after the
decoder the best queries of this frame are pushed in front.

Reduced from exiawsh/StreamPETR at commit 95f64702306ccdb7a78889578b2a55b5deb35b2a,
projects/mmdet3d_plugin/models/dense_heads/streampetr_head.py:312-317 (``reset_memory``: every
memory attribute None), :319-337 (``pre_update_memory``: ``if self.memory_embedding is None:``
``x.new_zeros`` for each memory, ``else:`` ``self.memory_timestamp +=`` the time step, each memory
cut to ``memory_len`` and multiplied by ``prev_exists`` through ``memory_refresh``,
projects/mmdet3d_plugin/models/utils/misc.py:7-11) and :346-375 (``post_update_memory``: the
top-k queries of this frame gathered and concatenated in front of each memory, the timestamps
shifted back by ``-=``). Written here in our own words: two of the five memories (embedding and
timestamp, in float32), the helpers inlined into forward (StreamPETR's own helpers are refused by
the lift, ``examples/temporal/streampetr_memory.py``), and the transformer reduced to one attention
of the queries over the memory plus a time embedding.
"""

import torch
from torch import nn


class StreamQueryMemory(nn.Module):
    def __init__(self, dims: int = 8, memory_len: int = 4, topk_proposals: int = 2) -> None:
        super().__init__()
        self.embed_dims, self.memory_len, self.topk_proposals = dims, memory_len, topk_proposals
        self.time_embedding = nn.Linear(1, dims)
        self.query = nn.Linear(dims, dims)
        self.cls = nn.Linear(dims, 1)
        self.reset_memory()

    def reset_memory(self) -> None:
        self.memory_embedding = None
        self.memory_timestamp = None

    def forward(self, queries: torch.Tensor, prev_exists: torch.Tensor, timestamp: torch.Tensor) -> torch.Tensor:
        B = prev_exists.size(0)
        if self.memory_embedding is None:
            self.memory_embedding = prev_exists.new_zeros(B, self.memory_len, self.embed_dims)
            self.memory_timestamp = prev_exists.new_zeros(B, self.memory_len, 1)
        else:
            self.memory_timestamp += timestamp.unsqueeze(-1).unsqueeze(-1)
            self.memory_timestamp = self.memory_timestamp[:, :self.memory_len] * prev_exists.view(-1, 1, 1)
            self.memory_embedding = self.memory_embedding[:, :self.memory_len] * prev_exists.view(-1, 1, 1)
        memory = self.memory_embedding + self.time_embedding(self.memory_timestamp)
        attention = torch.softmax(self.query(queries) @ memory.transpose(1, 2), dim=-1)
        outs_dec = queries + attention @ memory
        rec_score = self.cls(outs_dec).sigmoid()
        _, topk_indexes = torch.topk(rec_score, self.topk_proposals, dim=1)
        rec_memory = torch.gather(outs_dec, 1, topk_indexes.expand(-1, -1, self.embed_dims)).detach()
        rec_timestamp = torch.zeros_like(torch.gather(rec_score, 1, topk_indexes))
        self.memory_embedding = torch.cat([rec_memory, self.memory_embedding], dim=1)
        self.memory_timestamp = torch.cat([rec_timestamp, self.memory_timestamp], dim=1)
        self.memory_timestamp -= timestamp.unsqueeze(-1).unsqueeze(-1)
        return outs_dec


def build() -> nn.Module:
    return StreamQueryMemory().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator), torch.ones(2), torch.rand(2, generator=generator))


DYNAMIC: dict = {}
