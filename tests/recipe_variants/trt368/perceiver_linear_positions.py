"""Perceiver's Fourier position encoding: linear positions from -1 to 1 over each index axis of the input.

Reduced from transformers 4.46.3 (PyPI), transformers/models/perceiver/modeling_perceiver.py:
``build_linear_positions`` (lines 2710-2730) defines ``_linspace(n_xels_per_dim)`` returning
``torch.linspace(start=output_range[0], end=output_range[1], steps=n_xels_per_dim, dtype=torch.float32)``
and maps it over ``index_dims``; ``generate_fourier_features`` (lines 2658-2707) multiplies the positions
by bands and joins their sines and cosines to them; ``PerceiverImagePreprocessor._build_network_inputs``
(lines 3192-3225) passes ``index_dims = inputs.shape[1:-1]`` of a channels-last input. Kept: the nested
``_linspace`` with every argument a keyword, the comprehension over the index axes and the features.
Reduced: 3 bands, a channels-last input of 2 channels, and the flattening to ``(batch, -1, d)`` written
with ``pos.shape[-1]`` (the original's ``np.prod(index_dims)`` is a number the trace keeps). An input of
one row gives a count of 1: torch's positions are ``[-1]``, the exported ones NaN. Written here in our
own words.
"""

import numpy as np
import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "height", 2: "width"}}


def build_linear_positions(index_dims, output_range=(-1.0, 1.0)):
    def _linspace(n_xels_per_dim):
        return torch.linspace(start=output_range[0], end=output_range[1], steps=n_xels_per_dim, dtype=torch.float32)

    axes = [_linspace(n) for n in index_dims]
    return torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=-1)


def fourier_features(pos, num_bands, max_resolution):
    bands = torch.stack([torch.linspace(start=1.0, end=res / 2, steps=num_bands) for res in max_resolution], dim=0)
    per_pos = (pos[0, :, :, None] * bands[None]).flatten(1)
    per_pos = torch.cat([torch.sin(np.pi * per_pos), torch.cos(np.pi * per_pos)], dim=-1)
    return torch.cat([pos, per_pos.expand(pos.shape[0], -1, -1)], dim=-1)


class FourierPreprocessor(nn.Module):
    def __init__(self, num_bands: int = 3) -> None:
        super().__init__()
        self.num_bands = num_bands
        self.project = nn.Linear(2 + 2 + 2 * 2 * num_bands, 4)

    def forward(self, x):
        batch_size = x.shape[0]
        index_dims = x.shape[1:-1]
        pos = build_linear_positions(index_dims)
        pos = pos[None].expand((batch_size,) + tuple(pos.shape))
        pos = pos.reshape(batch_size, -1, pos.shape[-1])
        enc = fourier_features(pos, self.num_bands, (16, 16))
        return self.project(torch.cat([x.reshape(batch_size, -1, x.shape[-1]), enc], dim=-1))


def build() -> nn.Module:
    torch.manual_seed(0)
    return FourierPreprocessor().eval()


def inputs(generator):
    return (torch.rand(1, 4, 6, 2, generator=generator),)
