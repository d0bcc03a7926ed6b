"""The fused projections of xLSTM's mLSTM layer and feed-forward block, cut with ``tensor_split``: NX-AI xlstm.

Reduced from NX-AI/xlstm (commit 00dc9e48362cca6d645f09aac8011156e3e775d4), xlstm/xlstm_large/model.py:
with ``weight_mode="fused"`` one linear layer projects to queries, keys, values and the output gate
together, and ``mLSTMLayer.forward`` cuts them apart with ``torch.tensor_split`` at three points
computed from attributes (``(self.qk_dim, 2 * self.qk_dim, 2 * self.qk_dim + self.v_dim)``, ``dim=-1``),
the input and forget gate pre-activations at ``(self.config.num_heads,)``; ``FeedForward.forward``
cuts its fused up-projection into gate and value at ``(self.up_proj_dim,)``. Written here in our own
words; the mLSTM cell itself (a kernel) is replaced by a gated product of the parts, which keeps
every part in the output.
"""

import torch
from torch import nn


class FusedGates(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2, qk_factor: float = 0.5, up: int = 12) -> None:
        super().__init__()
        self.num_heads = heads
        self.qk_dim = int(dim * qk_factor)
        self.v_dim = dim
        self.up_proj_dim = up
        self.qkv_opreact = nn.Linear(dim, 2 * self.qk_dim + 2 * self.v_dim, bias=False)
        self.ifgate_preact = nn.Linear(dim, 2 * heads)
        self.proj_up_gate_z = nn.Linear(dim, 2 * up, bias=False)
        self.proj_down = nn.Linear(up, dim, bias=False)
        self.out_proj = nn.Linear(self.v_dim, dim, bias=False)

    def forward(self, x):
        qkv_opreact = self.qkv_opreact(x)
        q, k, v, o_preact = torch.tensor_split(
            qkv_opreact,
            (
                self.qk_dim,
                2 * self.qk_dim,
                2 * self.qk_dim + self.v_dim,
            ),
            dim=-1,
        )
        i_preact, f_preact = torch.tensor_split(self.ifgate_preact(x), (self.num_heads,), dim=-1)
        gates = torch.sigmoid(i_preact - f_preact).mean(-1, keepdim=True)
        h = self.out_proj(torch.sigmoid(o_preact) * v * gates) + (q * k).sum(-1, keepdim=True)

        up = self.proj_up_gate_z(h)
        gate, z = torch.tensor_split(up, (self.up_proj_dim,), dim=-1)
        return self.proj_down(nn.functional.silu(gate) * z)


def build() -> nn.Module:
    return FusedGates()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "sequence"}}
