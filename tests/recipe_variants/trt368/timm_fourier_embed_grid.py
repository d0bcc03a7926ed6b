"""timm's FourierEmbed: a grid from -1 to 1 over each spatial axis, and its sines and cosines, joined to the map.

Reduced from timm 1.0.12 (PyPI), timm/layers/pos_embed_sincos.py: ``build_fourier_pos_embed`` (lines
80-147) takes, for pixel frequencies, ``[torch.linspace(-1., 1., steps=s, device=device,
dtype=torch.float32) for s in feat_shape]`` (line 133), meshes the axes, multiplies by the frequency bands
and returns the grid with its sines and cosines; ``FourierEmbed.forward`` (lines 170-191) calls it with
``feat_shape = x.shape[2:]`` and, with ``keep_spatial``, joins the embedding to the map's channels. Kept:
the comprehension with ``steps=`` as a keyword, the bands and the join. Reduced: 4 bands, and the
``keep_spatial`` path only (the other flattens with ``feat_shape.numel()``, a Python int the trace keeps).
A map of one row or one column gives ``s`` 1: torch's grid is ``[-1]``, the exported one NaN. Written here
in our own words.
"""

import math

import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


def pixel_bands(num_bands: int, max_freq: float):
    return torch.linspace(1.0, max_freq / 2, num_bands, dtype=torch.float32) * math.pi


def fourier_grid(feat_shape, bands, device, dtype):
    t = [torch.linspace(-1., 1., steps=s, device=device, dtype=torch.float32) for s in feat_shape]
    grid = torch.stack(torch.meshgrid(t, indexing="ij"), dim=-1).unsqueeze(-1)
    pos = grid * bands
    return [grid, pos.sin().to(dtype=dtype), pos.cos().to(dtype)]


class FourierEmbed(nn.Module):
    def __init__(self, max_res: int = 32, num_bands: int = 4) -> None:
        super().__init__()
        self.register_buffer("bands", pixel_bands(num_bands, max_res), persistent=False)

    def forward(self, x):
        B = x.shape[0]
        feat_shape = x.shape[2:]
        emb = torch.cat(fourier_grid(feat_shape, self.bands, x.device, x.dtype), dim=-1)
        emb = emb.transpose(-1, -2).flatten(len(feat_shape))
        expand = (B,) + (-1,) * (x.ndim - 1)
        return torch.cat([x, emb.unsqueeze(0).expand(expand).permute(0, 3, 1, 2)], dim=1)


def build() -> nn.Module:
    return FourierEmbed().eval()


def inputs(generator):
    return (torch.rand(2, 3, 5, 7, generator=generator),)
