"""Megatron-LM's all-gather token dispatcher: the tokens routed to the local experts are counted
with ``torch.histc(local_indices, bins=self.num_local_experts, min=self.local_expert_indices[0],
max=self.local_expert_indices[-1])`` (the range read from a list attribute), next to the argsort
that groups the tokens by expert.

Reduced from NVIDIA/Megatron-LM, commit f1f039224584f0bc6ba89c21ef4f491d7136e3ce (the parent of
the commit that moved to mask-based routing), megatron/core/transformer/moe/token_dispatcher.py,
``MoEAllGatherTokenDispatcher.token_permutation`` lines 109-213 (the histc at lines 198-203).
Written here in our own words: one device and top-1 routing (the branch with
``local_indices = max_ind``); the indices are cast to float before the count (CPU has no integer
histc; Megatron ran it on CUDA); the experts are applied to the sorted tokens by reading each
token's expert weights, and the dispatcher's counts are returned next to the combined output.
"""

import torch
from torch import nn
from torch.nn import functional as F


class AllGatherDispatchMoE(nn.Module):
    def __init__(self, hidden: int = 6, num_experts: int = 3) -> None:
        super().__init__()
        self.num_local_experts = num_experts
        self.local_expert_indices = list(range(num_experts))
        self.router = nn.Linear(hidden, num_experts)
        self.experts = nn.Parameter(torch.randn(num_experts, hidden, hidden) * 0.4)

    def forward(self, hidden_states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden_states = hidden_states.view(-1, hidden_states.shape[-1])
        max_prob, max_ind = torch.max(F.softmax(self.router(hidden_states), dim=-1), dim=-1)
        local_indices = max_ind
        indices = torch.argsort(local_indices, dim=0)
        tokens_per_expert = torch.histc(
            local_indices.float(),
            bins=self.num_local_experts,
            min=self.local_expert_indices[0],
            max=self.local_expert_indices[-1],
        )
        tokens_per_expert = tokens_per_expert.to(torch.long)
        permuted = hidden_states[indices]
        expert_out = torch.bmm(permuted.unsqueeze(1), self.experts[local_indices[indices]]).squeeze(1)
        output = torch.zeros_like(expert_out).index_copy(0, indices, expert_out)
        return output * max_prob.unsqueeze(-1), tokens_per_expert


def build() -> nn.Module:
    return AllGatherDispatchMoE()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, generator=generator),)


DYNAMIC = {"hidden_states": {0: "sequence", 1: "batch"}}
