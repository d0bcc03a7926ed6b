"""ESMFold2's atom attention: keys padded out by the attention mask with ``-inf`` leave a query
with no key to attend to, whose softmax row is NaN; the layer clears it with a bare
``attn_output = torch.nan_to_num(attn_output)`` (default arguments: NaN to zero, infinities to the
dtype's extremes) before the output gate.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
transformers/models/esmfold2/modeling_esmfold2.py, ``EsmFold2AtomAttention.forward`` lines
302-340 (query, key and value projections, the attention with the mask, the ``nan_to_num`` at line
336, the reshape and the sigmoid gate before ``o_proj``). Written here in our own words: the
attention interface is written out as a masked softmax over a key padding mask (an input), two
heads.
"""

import torch
from torch import nn


class AtomAttention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scaling = self.head_dim ** -0.5
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.gate_proj = nn.Linear(dim, dim)
        self.o_proj = nn.Linear(dim, dim)

    def forward(self, hidden_states: torch.Tensor, key_padding: torch.Tensor) -> torch.Tensor:
        input_shape = hidden_states.shape[:-1]
        split = (*input_shape, self.heads, self.head_dim)
        query = self.q_proj(hidden_states).view(split).transpose(1, 2)
        key = self.k_proj(hidden_states).view(split).transpose(1, 2)
        value = self.v_proj(hidden_states).view(split).transpose(1, 2)
        scores = (query @ key.transpose(-1, -2)) * self.scaling
        scores = scores.masked_fill(~key_padding[:, None, None, :], float("-inf"))
        attn_output = (scores.softmax(dim=-1) @ value).transpose(1, 2)
        # a query whose keys are all padding has a NaN row
        attn_output = torch.nan_to_num(attn_output)
        attn_output = attn_output.reshape(*input_shape, -1)
        attn_output = attn_output * torch.sigmoid(self.gate_proj(hidden_states))
        return self.o_proj(attn_output)


def build() -> nn.Module:
    return AtomAttention()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    hidden = torch.randn(2, 5, 8, generator=generator)
    keep = torch.tensor([[True, True, True, True, False], [False] * 5])
    return hidden, keep


DYNAMIC = {"hidden_states": {0: "batch", 1: "atoms"}, "key_padding": {0: "batch", 1: "atoms"}}
