"""DiffSim's patched transformer block: a top-level function bound to the last block as its forward
deep-copies the hidden states before the attention's residual is added, and returns the copy.

Reduced from showlab/DiffSim @ 06d48b1d94ad406e31e89edf7ccb48ce5f561421, diffsim/hacked_modules.py:
``hacked_BasicTransformerBlock_forward`` (lines 17-136: ``hidden_states_residual =
copy.deepcopy(hidden_states)`` at line 71, returned with the attention's query, key and value at line 136)
and ``hacked_Transformer2DModel_forward`` (lines 261-434), which binds it to the last block inside its own
forward: ``block.forward = hacked_BasicTransformerBlock_forward.__get__(block, BasicTransformerBlock)``
(line 363). Written here in our own words: a block of a layer norm, one-head self-attention and a
feed-forward layer, a wrapper projecting in and out, and the copy joined to the output (DiffSim compares
such features of two images).
"""

import copy

import torch
from torch import nn


class TransformerBlock(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.norm1, self.norm3 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def attend(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        return weights @ v, q, k

    def forward(self, hidden_states):
        attn_output, _, _ = self.attend(self.norm1(hidden_states))
        hidden_states = attn_output + hidden_states
        return self.ff(self.norm3(hidden_states)) + hidden_states


def patched_block_forward(self, hidden_states):
    # the block's own forward, also handing back the attention's query and key and the states before the residual
    attn_output, query, key = self.attend(self.norm1(hidden_states))
    hidden_states_residual = copy.deepcopy(hidden_states)
    hidden_states = attn_output + hidden_states
    hidden_states = self.ff(self.norm3(hidden_states)) + hidden_states
    return hidden_states, query, key, hidden_states_residual


class FeatureTransformer(nn.Module):
    def __init__(self, channels: int = 4, dim: int = 8, depth: int = 2) -> None:
        super().__init__()
        self.proj_in = nn.Linear(channels, dim)
        self.blocks = nn.ModuleList(TransformerBlock(dim) for _ in range(depth))
        self.proj_out = nn.Linear(dim, channels)

    def forward(self, x):
        batch, channels, height, width = x.shape
        hidden_states = self.proj_in(x.flatten(2).transpose(1, 2))
        residual = None
        for i, block in enumerate(self.blocks):
            if i == len(self.blocks) - 1:  # the last block hands back its features
                block.forward = patched_block_forward.__get__(block, TransformerBlock)
                hidden_states, _, _, residual = block(hidden_states)
            else:
                hidden_states = block(hidden_states)
        out = self.proj_out(hidden_states).transpose(1, 2).reshape(batch, channels, height, width)
        return torch.cat([out.flatten(1), residual.flatten(1)], dim=1)


def build() -> nn.Module:
    return FeatureTransformer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 3, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
