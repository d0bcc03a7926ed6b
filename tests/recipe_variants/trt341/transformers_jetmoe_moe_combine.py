"""JetMoE's mixture-of-experts layer: the experts' outputs summed back into their tokens.

Reduced from transformers 5.24.0 (the pinned wheel), transformers/models/jetmoe/modeling_jetmoe.py:
``JetMoeTopKGating.forward`` (lines 181-206: top-k of the router's logits, the flattened expert ids
sorted, ``batch_index`` their token, ``batch_gates`` their weight), ``JetMoeParallelExperts.forward``
(lines 139-157) and ``JetMoeMoE.forward`` (lines 234-264), whose outputs are combined with
``zeros.index_add(0, batch_index, expert_outputs)`` (line 261): with two experts a token, every token
index comes twice. The routing stays data-dependent (top-k, sort, gather); what does not export is
the experts' ``inputs.split(expert_size)`` by the ``expert_size.tolist()`` counts, so each row here
is multiplied by its own expert's weight, gathered by expert id (the same products, one batched
matmul). Written here in our own words, with four experts, two a token and small sizes.
"""

import torch
import torch.nn.functional as F
from torch import nn


class ParallelExperts(nn.Module):
    def __init__(self, num_experts: int, input_size: int, output_size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_experts, output_size, input_size) * 0.3)

    def forward(self, inputs, expert_ids):
        # Row r goes through expert expert_ids[r]: its weight gathered instead of a split by counts.
        return torch.bmm(self.weight[expert_ids], inputs.unsqueeze(-1)).squeeze(-1)


class TopKGating(nn.Module):
    def __init__(self, input_size: int, num_experts: int, top_k: int) -> None:
        super().__init__()
        self.top_k = top_k
        self.layer = nn.Linear(input_size, num_experts, bias=False)

    def forward(self, hidden_states):
        logits = self.layer(hidden_states).float()
        top_k_logits, top_k_indices = logits.topk(self.top_k, dim=1)
        top_k_gates = torch.softmax(top_k_logits, dim=1).type_as(hidden_states)
        top_k_experts = top_k_indices.flatten()
        sorted_experts, index_sorted_experts = top_k_experts.sort(0)
        batch_index = index_sorted_experts.div(self.top_k, rounding_mode="trunc")
        batch_gates = top_k_gates.flatten()[index_sorted_experts]
        return sorted_experts, batch_index, batch_gates


class JetMoeMoE(nn.Module):
    def __init__(self, hidden_size: int = 8, intermediate_size: int = 6, num_experts: int = 4, top_k: int = 2) -> None:
        super().__init__()
        self.input_size = hidden_size
        self.bias = nn.Parameter(torch.randn(hidden_size) * 0.1)
        self.input_linear = ParallelExperts(num_experts, hidden_size, intermediate_size * 2)
        self.output_linear = ParallelExperts(num_experts, intermediate_size, hidden_size)
        self.router = TopKGating(hidden_size, num_experts, top_k)

    def forward(self, layer_input):
        bsz, length, emb_size = layer_input.size()
        layer_input = layer_input.reshape(-1, emb_size)
        expert_ids, batch_index, batch_gates = self.router(layer_input)

        expert_inputs = layer_input[batch_index]
        hidden_states = self.input_linear(expert_inputs, expert_ids)
        chunked = hidden_states.chunk(2, dim=-1)
        hidden_states = F.silu(chunked[0]) * chunked[1]
        expert_outputs = self.output_linear(hidden_states, expert_ids)
        expert_outputs = expert_outputs * batch_gates[:, None]

        zeros = torch.zeros((bsz * length, self.input_size), dtype=expert_outputs.dtype, device=expert_outputs.device)
        layer_output = zeros.index_add(0, batch_index, expert_outputs)
        layer_output = layer_output.view(bsz, length, self.input_size)
        return layer_output + self.bias


def build() -> nn.Module:
    return JetMoeMoE().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator),)


DYNAMIC = {"layer_input": {0: "batch", 1: "length"}}
