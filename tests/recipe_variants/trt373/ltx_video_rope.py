"""LTX-Video's 3-D rotary embedding: per-token frequencies from fractional (frame, height, width) positions, their
cosines and sines doubled along the last axis, applied in attention by a rotation that unbinds and stacks pairs
along ``-1``.

Reduced from Lightricks/LTX-Video @ 5260738e171955b66c0827f9af7e84d68fd1d919,
ltx_video/models/transformers/transformer3d.py: ``get_fractional_positions`` (lines 194-202, the grid divided by
the maximum positions) and ``precompute_freqs_cis`` (lines 204-256, ``spacing="exp"``): ``freqs`` of shape
``(batch, tokens, dim // 2)`` and ``cos_freq = freqs.cos().repeat_interleave(2, dim=-1)`` (line 250; the sines on
line 251); ltx_video/models/transformers/attention.py, ``apply_rotary_emb`` (lines 918-932):
``t_dup.unbind(dim=-1)`` and ``torch.stack((-t2, t1), dim=-1)`` on the 4-D pairs. Kept: the frequencies from the
traced token grid, the two ``repeat_interleave`` calls on a computed receiver, the rotation along ``-1``. Reduced:
the einops ``rearrange`` is a ``reshape``, one projection stands for the attention around the rotation, no
padding (the width is a multiple of 6). Written here in our own words. The TorchScript exporter makes the shared
``-1`` a 2 (the frequencies' rank is 3), and the rotation of the 4-D pairs unbinds and stacks along axis 2: the
graph is refused or computes other values.
"""

import math

import torch
from torch import nn

DYNAMIC = {"hidden_states": {0: "batch", 1: "tokens"}, "indices_grid": {0: "batch", 2: "tokens"}}
CALL = "cos_freq = freqs.cos().repeat_interleave(2, dim=-1)"


class RopeAttention(nn.Module):
    def __init__(self, inner_dim: int = 12, theta: float = 10000.0) -> None:
        super().__init__()
        self.inner_dim = inner_dim
        self.theta = theta
        self.positional_embedding_max_pos = [20, 64, 64]
        self.to_q = nn.Linear(inner_dim, inner_dim)

    def get_fractional_positions(self, indices_grid):
        return torch.stack([indices_grid[:, i] / self.positional_embedding_max_pos[i] for i in range(3)], dim=-1)

    def precompute_freqs_cis(self, indices_grid):
        dim = self.inner_dim
        fractional_positions = self.get_fractional_positions(indices_grid)
        start, end = 1, self.theta
        indices = self.theta ** torch.linspace(math.log(start, self.theta), math.log(end, self.theta), dim // 6,
                                               dtype=torch.float32)
        indices = indices * math.pi / 2
        freqs = (indices * (fractional_positions.unsqueeze(-1) * 2 - 1)).transpose(-1, -2).flatten(2)
        cos_freq = freqs.cos().repeat_interleave(2, dim=-1)
        sin_freq = freqs.sin().repeat_interleave(2, dim=-1)
        return cos_freq, sin_freq

    @staticmethod
    def apply_rotary_emb(input_tensor, freqs_cis):
        cos_freqs, sin_freqs = freqs_cis
        t_dup = input_tensor.reshape(*input_tensor.shape[:-1], -1, 2)
        t1, t2 = t_dup.unbind(dim=-1)
        t_dup = torch.stack((-t2, t1), dim=-1)
        rotated = t_dup.flatten(-2)
        return input_tensor * cos_freqs + rotated * sin_freqs

    def forward(self, hidden_states, indices_grid):
        freqs_cis = self.precompute_freqs_cis(indices_grid)
        return self.apply_rotary_emb(self.to_q(hidden_states), freqs_cis)


def build() -> nn.Module:
    torch.manual_seed(0)
    return RopeAttention().eval()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 6) -> tuple[torch.Tensor, ...]:
    grid = torch.randint(0, 16, (batch, 3, tokens), generator=generator).float()
    return (torch.randn(batch, tokens, 12, generator=generator), grid)
