"""The overflow clamp of DETR-family encoder layers, with its temporary: transformers' DETR.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/detr/modeling_detr.py:642-645
(``DetrEncoderLayer.forward``: ``if self.training: if not torch.isfinite(hidden_states).all():
clamp_value = torch.finfo(hidden_states.dtype).max - 1000; hidden_states =
torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)``; the same lines are in Conditional
DETR, Deformable DETR, RT-DETR, RT-DETRv2, D-FINE, Grounding DINO, MM Grounding DINO,
Mask2Former, OmDet-Turbo and PP-DocLayout there, and come from BART's encoder layer). Written here
in our own words, with a small feed-forward block and no attention.
"""

import torch
import torch.nn.functional as F
from torch import nn


class EncoderLayer(nn.Module):
    def __init__(self, d_model=8) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_model, 16)
        self.fc2 = nn.Linear(16, d_model)
        self.final_layer_norm = nn.LayerNorm(d_model)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.fc2(F.relu(self.fc1(hidden_states)))
        hidden_states = self.final_layer_norm(residual + hidden_states)
        if self.training:
            if not torch.isfinite(hidden_states).all():
                clamp_value = torch.finfo(hidden_states.dtype).max - 1000
                hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


def build() -> nn.Module:
    return EncoderLayer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 5, 8, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}}
