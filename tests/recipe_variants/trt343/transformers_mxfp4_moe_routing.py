"""transformers' MXFP4 GPT-OSS experts: the routing tables of one expert-parallel shard.

Reduced from transformers 5.24.0 (the pinned wheel), transformers/integrations/mxfp4.py,
``routing_from_top_k`` (lines 391-420): each token's chosen experts sorted with
``torch.sort(top_k_index.to(torch.int32), dim=1)``, their weights gathered alike; routes to experts
this shard does not own (ids outside ``[0, num_experts)``) sort after every owned expert's, and the
routes are grouped by expert with ``torch.argsort(torch.where(local, expt_indx, num_experts),
stable=True)`` (line 411), tokens of one expert in token order (many ties: every expert takes
several routes); the inverse permutation ``torch.argsort(topk_indx)`` gives each route its slot,
-1 for the skipped. The routes come from a router here (a linear layer, top-k, softmax); the
Triton metadata objects and the expert histogram of the original are left out. Written here in
our own words.
"""

import torch
from torch import nn


def routing_from_top_k(top_k_index, top_k_weights, num_experts):
    replace_value = -1
    expt_indx, sort_indices = torch.sort(top_k_index.to(torch.int32), dim=1)
    expt_scal = torch.gather(top_k_weights, 1, sort_indices).reshape(-1)
    expt_indx = expt_indx.view(-1)
    local = (expt_indx >= 0) & (expt_indx < num_experts)
    topk_indx = torch.argsort(torch.where(local, expt_indx, num_experts), stable=True).to(torch.int32)
    gate_indx = torch.argsort(topk_indx).to(torch.int32)
    gate_indx = torch.where(local, gate_indx, replace_value)
    gate_scal = expt_scal[topk_indx]
    topk_indx = torch.where(gate_indx[topk_indx] == replace_value, replace_value, topk_indx)
    return gate_scal, topk_indx, gate_indx


class ShardRouter(nn.Module):
    def __init__(self, hidden=8, total_experts=6, local_experts=4, top_k=2) -> None:
        super().__init__()
        self.router = nn.Linear(hidden, total_experts)
        self.local_experts = local_experts
        self.top_k = top_k

    def forward(self, hidden_states):
        logits = self.router(hidden_states)
        weights, index = torch.topk(logits, self.top_k, dim=-1)
        weights = torch.softmax(weights, dim=-1)
        return routing_from_top_k(index, weights, self.local_experts)


def build() -> nn.Module:
    return ShardRouter().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(9, 8, generator=generator),)


DYNAMIC = {"hidden_states": {0: "tokens"}}
