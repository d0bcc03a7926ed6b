"""Granite Speech 5's subsampling block: frames pooled by two with ``unfold(1, 2, 2).mean(-1)``.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/granite_speech5/
modeling_granite_speech5.py, ``GraniteSpeech5EncoderSubsamplingBlock.forward`` (lines 274-303)
and ``GraniteSpeech5EncoderConvolutionModule`` (lines 174-202): the convolution branch runs a
depthwise convolution of stride 2 (its length rounds up), the residual branch is pooled by two
along time with ``hidden_states.unfold(1, 2, 2).mean(-1)`` (an odd last frame is dropped), and
the two are added with the convolution cut to the pooled length,
``conv_output[:, : pooled.shape[1]]``. Written here in our own words with the attention and feed
forward halves left out and a plain normalization in place of batch norm.
"""

import torch
from torch import nn


class StridedConvolution(nn.Module):
    def __init__(self, hidden: int = 6, kernel: int = 5) -> None:
        super().__init__()
        self.pointwise_in = nn.Linear(hidden, hidden * 2)
        self.depthwise = nn.Conv1d(hidden, hidden, kernel, stride=2, padding=(kernel - 1) // 2, groups=hidden,
                                   bias=False)
        self.pointwise_out = nn.Linear(hidden, hidden)

    def forward(self, hidden_states):
        hidden_states = nn.functional.glu(self.pointwise_in(hidden_states), dim=-1)
        hidden_states = nn.functional.silu(self.depthwise(hidden_states.transpose(1, 2)))
        return self.pointwise_out(hidden_states.transpose(1, 2))


class SubsamplingBlock(nn.Module):
    def __init__(self, hidden: int = 6) -> None:
        super().__init__()
        self.norm_conv = nn.LayerNorm(hidden)
        self.conv = StridedConvolution(hidden)
        self.norm_out = nn.LayerNorm(hidden)

    def forward(self, hidden_states):
        conv_output = self.conv(self.norm_conv(hidden_states))
        pooled = hidden_states.unfold(1, 2, 2).mean(-1)  # pool by 2 along time, the last odd frame dropped
        hidden_states = pooled + conv_output[:, : pooled.shape[1]]
        return self.norm_out(hidden_states)


def build() -> nn.Module:
    return SubsamplingBlock()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 6, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "frames"}}
