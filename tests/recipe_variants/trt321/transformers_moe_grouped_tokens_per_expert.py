"""transformers' grouped-GEMM experts: the routed (token, expert) pairs are sorted by expert and
the rows each expert takes are counted with
``torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)`` on the
expert ids cast to float (CPU has no integer histc), then turned into offsets by a cumulative sum.

Reduced from transformers 5.24.0 (the PyPI wheel the zoo unpacks), transformers/integrations/moe.py,
``grouped_mm_experts_forward`` lines 424-537 (the histc at line 449, the offsets at line 450).
Written here in our own words: a softmax top-2 router in front; the grouped matmul
(``_grouped_linear``, ``torch._grouped_mm`` or transformers' fallback op) is written as each
sorted row reading its expert's weights, the expert found by counting the offsets at or below
the row; the weighted rows are summed back per token.
"""

import torch
from torch import nn
from torch.nn import functional as F


class GroupedExperts(nn.Module):
    def __init__(self, hidden: int = 6, intermediate: int = 8, num_experts: int = 4, top_k: int = 2) -> None:
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.router = nn.Linear(hidden, num_experts)
        self.up_proj = nn.Parameter(torch.randn(num_experts, hidden, intermediate) * 0.3)
        self.down_proj = nn.Parameter(torch.randn(num_experts, intermediate, hidden) * 0.3)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        top_k_weights, top_k_index = torch.topk(F.softmax(self.router(hidden_states), dim=-1), self.top_k, dim=-1)
        num_top_k = top_k_index.size(-1)
        sample_weights = top_k_weights.reshape(-1)
        expert_ids = top_k_index.reshape(-1)
        expert_ids_g, perm = torch.sort(expert_ids)
        token_of_row = perm // num_top_k
        selected_hidden_states_g = hidden_states[token_of_row]
        sample_weights_g = sample_weights[perm]
        histc_input = expert_ids_g.float()
        tokens_per_expert = torch.histc(histc_input, bins=self.num_experts, min=0, max=self.num_experts - 1)
        offsets = torch.cumsum(tokens_per_expert, dim=0, dtype=torch.int32)
        row = torch.arange(expert_ids_g.shape[0], device=hidden_states.device, dtype=torch.int32)
        expert_of_row = (row.unsqueeze(1) >= offsets.unsqueeze(0)).sum(1)
        up = torch.bmm(selected_hidden_states_g.unsqueeze(1), self.up_proj[expert_of_row])
        down = torch.bmm(F.silu(up), self.down_proj[expert_of_row]).squeeze(1)
        weighted = down * sample_weights_g.unsqueeze(-1)
        index = token_of_row.unsqueeze(-1).expand(-1, hidden_states.shape[-1])
        return torch.zeros_like(hidden_states).scatter_add(0, index, weighted)


def build() -> nn.Module:
    return GroupedExperts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(5, 6, generator=generator),)


DYNAMIC = {"hidden_states": {0: "tokens"}}
