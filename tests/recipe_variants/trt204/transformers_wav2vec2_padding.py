"""Hugging Face's wav2vec 2.0 encoder: before the positional convolution, the hidden states of
padded frames are zeroed through a mask of the hidden states' full shape, built by repeating
the (B, T) attention mask along the channels and negated in the index
(``hidden_states[~expand_attention_mask] = 0``: an int literal written into float states).

Reduced from huggingface/transformers at v5.24.0 (the PyPI release the second zoo unpacks),
src/transformers/models/wav2vec2/modeling_wav2vec2.py:662-671 (``Wav2Vec2Encoder.forward``:
``attention_mask.unsqueeze(-1).repeat(1, 1, hidden_states.shape[2])`` and the fill; HuBERT,
WavLM, UniSpeech, SEW and Data2VecAudio carry the same lines), written here in our own words;
the positional convolution and the layers are one small convolution and a layer norm.
"""

import torch
from torch import nn


class PaddedEncoder(nn.Module):
    def __init__(self, dim: int = 6) -> None:
        super().__init__()
        self.pos_conv = nn.Conv1d(dim, dim, kernel_size=3, padding=1)
        self.norm = nn.LayerNorm(dim)

    def forward(self, hidden_states: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        hidden_states = hidden_states.clone()
        expand_attention_mask = attention_mask.unsqueeze(-1).repeat(1, 1, hidden_states.shape[2])
        hidden_states[~expand_attention_mask] = 0
        position = self.pos_conv(hidden_states.transpose(1, 2)).transpose(1, 2)
        return self.norm(hidden_states + position)


def build() -> nn.Module:
    return PaddedEncoder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    states = torch.randn(2, 7, 6, generator=generator)
    lengths = torch.tensor([7, 4])
    return states, torch.arange(7)[None, :] < lengths[:, None]


DYNAMIC = {"hidden_states": {0: "batch", 1: "frames"}, "attention_mask": {0: "batch", 1: "frames"}}
