"""MusicFlamingo's rotary time embedding: the audio features rotated by timestamp angles in
float64 (a local ``dtype``, float32 only on MPS), then cast back to their own dtype.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/musicflamingo/modeling_musicflamingo.py:183-194 (``apply_rotary_time_emb``,
called from the model's audio path at line 243): ``original_dtype = hidden_states.dtype``,
``dtype = torch.float32 if hidden_states.device.type == "mps" else torch.float64``,
``hidden_states.to(dtype)``, ``cos``/``sin`` cast to it, the first ``rot_dim`` channels rotated
(``x * cos + rotate_half(x) * sin``, pairs interleaved), the rest passed through, and the result
cast to ``original_dtype``. Written here in our own words; the angles come from a small stand-in
(timestamps times fixed frequencies) instead of the model's rotary module.
"""

import torch
from torch import nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    x = x.unflatten(-1, (-1, 2))
    x1, x2 = x.unbind(dim=-1)
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary_time_emb(hidden_states: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    original_dtype = hidden_states.dtype
    dtype = torch.float32 if hidden_states.device.type == "mps" else torch.float64
    hidden_states = hidden_states.to(dtype)
    cos = cos.to(hidden_states)
    sin = sin.to(hidden_states)
    rot_dim = cos.shape[-1]
    passthrough = hidden_states[..., rot_dim:]
    rotated = hidden_states[..., :rot_dim]
    rotated = (rotated * cos) + (rotate_half(rotated) * sin)
    return torch.cat((rotated, passthrough), dim=-1).to(original_dtype)


class RotaryTime(nn.Module):
    def __init__(self, rot_dim: int = 4) -> None:
        super().__init__()
        self.register_buffer("freqs", torch.tensor([1.0, 0.1]).repeat_interleave(2)[:rot_dim])

    def forward(self, hidden_states: torch.Tensor, timestamps: torch.Tensor) -> torch.Tensor:
        angles = timestamps.unsqueeze(-1) * self.freqs
        return apply_rotary_time_emb(hidden_states, angles.cos(), angles.sin())


def build() -> nn.Module:
    return RotaryTime()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    hidden_states = torch.randn(2, 5, 6, generator=generator)
    timestamps = torch.arange(5.0).expand(2, 5) * 0.04
    return hidden_states, timestamps


DYNAMIC = {"hidden_states": {0: "batch", 1: "frames"}, "timestamps": {0: "batch", 1: "frames"}}
