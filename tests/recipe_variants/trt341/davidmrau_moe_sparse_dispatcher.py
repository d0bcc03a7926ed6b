"""A sparsely-gated mixture of experts (Shazeer et al.): the dispatcher's combine step.

Reduced from davidmrau/mixture-of-experts at commit f662999727109357c42074997e9a6cd72806f668,
moe.py: ``SparseDispatcher.__init__`` (lines 48-63: the nonzero gates sorted by expert,
``_batch_index`` the row of each, ``_nonzero_gates`` its weight), ``SparseDispatcher.combine``
(lines 82-103: the experts' outputs times their gates, summed into their rows with
``zeros.index_add(0, self._batch_index, stitched.float())``, line 102),
``MoE.noisy_top_k_gating`` without noise (lines 221-255) and ``MoE.forward`` (lines 257-281). With
``k`` experts a row, every row index comes ``k`` times. The gating stays data-dependent (softmax,
top-k, scatter, nonzero, sort); what does not export is ``dispatch``'s split by the
``(gates > 0).sum(0).tolist()`` counts and the list of per-expert outputs: here every expert runs on
every dispatched row and each row keeps its own expert's output (gathered by expert id). The
load-balancing loss is left out (a training term). Written here in our own words, with four experts,
two a row and small sizes.
"""

import torch
from torch import nn


class SparseDispatcher:
    def __init__(self, num_experts, gates):
        self._gates = gates
        self._num_experts = num_experts
        sorted_experts, index_sorted_experts = torch.nonzero(gates).sort(0)
        _, self._expert_index = sorted_experts.split(1, dim=1)
        self._batch_index = torch.nonzero(gates)[index_sorted_experts[:, 1], 0]
        gates_exp = gates[self._batch_index.flatten()]
        self._nonzero_gates = torch.gather(gates_exp, 1, self._expert_index)

    def dispatch(self, inp):
        return inp[self._batch_index].squeeze(1)

    def expert_ids(self):
        return self._expert_index.squeeze(1)

    def combine(self, stitched, multiply_by_gates=True):
        if multiply_by_gates:
            stitched = stitched.mul(self._nonzero_gates)
        zeros = torch.zeros(self._gates.size(0), stitched.size(1), device=stitched.device)
        combined = zeros.index_add(0, self._batch_index, stitched.float())
        return combined


class MLP(nn.Module):
    def __init__(self, input_size, output_size, hidden_size):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, output_size)
        self.relu = nn.ReLU()
        self.soft = nn.Softmax(1)

    def forward(self, x):
        return self.soft(self.fc2(self.relu(self.fc1(x))))


class MoE(nn.Module):
    def __init__(self, input_size=6, output_size=5, num_experts=4, hidden_size=7, k=2):
        super().__init__()
        self.num_experts = num_experts
        self.k = k
        self.experts = nn.ModuleList([MLP(input_size, output_size, hidden_size) for _ in range(num_experts)])
        self.w_gate = nn.Parameter(torch.randn(input_size, num_experts))
        self.softmax = nn.Softmax(1)

    def noisy_top_k_gating(self, x):
        logits = self.softmax(x @ self.w_gate)
        top_logits, top_indices = logits.topk(min(self.k + 1, self.num_experts), dim=1)
        top_k_logits = top_logits[:, :self.k]
        top_k_indices = top_indices[:, :self.k]
        top_k_gates = top_k_logits / (top_k_logits.sum(1, keepdim=True) + 1e-6)
        zeros = torch.zeros_like(logits)
        return zeros.scatter(1, top_k_indices, top_k_gates)

    def forward(self, x):
        gates = self.noisy_top_k_gating(x)
        dispatcher = SparseDispatcher(self.num_experts, gates)
        expert_inputs = dispatcher.dispatch(x)
        # Every expert on every dispatched row; each row keeps the output of its own expert.
        every = torch.stack([expert(expert_inputs) for expert in self.experts])
        picked = every.gather(0, dispatcher.expert_ids()[None, :, None].expand(1, -1, every.shape[-1]))[0]
        return dispatcher.combine(picked)


def build() -> nn.Module:
    return MoE().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(7, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
