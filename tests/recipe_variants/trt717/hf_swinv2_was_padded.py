"""Crop the window padding off when a flag computed just before says there was some: Swin V2.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/swinv2/modeling_swinv2.py:655-694
(``Swinv2Layer.forward``: the padding amounts from ``maybe_pad``, window attention on the padded map, then
``was_padded = pad_values[3] > 0 or pad_values[5] > 0`` and ``if was_padded: attention_windows =
attention_windows[:, :height, :width, :].contiguous()``); the same two lines are in the library's Swin2SR,
Donut Swin, DiNAT, CLAP and MaskFormer-Swin (``modeling_maskformer_swin.py:535``, the sixth zoo's
MaskFormer). Written here in our own words, a per-window mean standing in for the attention.
"""

import torch
from torch import nn


class SwinV2Layer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.window_size = 4
        self.mix = nn.Linear(6, 6)

    def maybe_pad(self, hidden_states, height, width):
        pad_right = (self.window_size - width % self.window_size) % self.window_size
        pad_bottom = (self.window_size - height % self.window_size) % self.window_size
        pad_values = (0, 0, 0, pad_right, 0, pad_bottom)
        return nn.functional.pad(hidden_states, pad_values), pad_values

    def forward(self, hidden_states):
        batch_size, height, width, channels = hidden_states.shape
        hidden_states, pad_values = self.maybe_pad(hidden_states, height, width)
        _, height_pad, width_pad, _ = hidden_states.shape
        ws = self.window_size
        windows = hidden_states.view(batch_size, height_pad // ws, ws, width_pad // ws, ws, channels)
        windows = self.mix(windows) + windows.mean(dim=(2, 4), keepdim=True)
        attention_windows = windows.view(batch_size, height_pad, width_pad, channels)

        was_padded = pad_values[3] > 0 or pad_values[5] > 0
        if was_padded:
            attention_windows = attention_windows[:, :height, :width, :].contiguous()

        return attention_windows.view(batch_size, height * width, channels)


def build() -> nn.Module:
    return SwinV2Layer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 8, 8, 6, generator=generator),)


DYNAMIC = {"hidden_states": {1: "h", 2: "w"}}
