"""A mel filterbank built in forward, with the library's check for an all-zero filter.

Reduced from torchaudio 2.5.1 (the PyPI wheel), torchaudio/functional/functional.py:428-590
(``melscale_fbanks``: ``all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)``, mel points from
``_hz_to_mel`` of the configured band edges, ``f_pts = _mel_to_hz(m_pts)``, the triangles of
``_create_triangular_filterbank(all_freqs, f_pts)``, then ``if (fb.max(dim=0).values == 0.0).any():
warnings.warn(...)`` at :583). Written here in our own words, with the file's own helpers (given only
configuration, they compute configuration); the spectrogram times the filterbank is the output.
"""

import math
import warnings

import torch
from torch import nn


def _to_mel(freq: float) -> float:
    return 2595.0 * math.log10(1.0 + freq / 700.0)


def _from_mel(mels: torch.Tensor) -> torch.Tensor:
    return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)


def _triangles(freqs: torch.Tensor, points: torch.Tensor) -> torch.Tensor:
    gaps = points[1:] - points[:-1]
    slopes = points.unsqueeze(0) - freqs.unsqueeze(1)
    falling = (-1.0 * slopes[:, :-2]) / gaps[:-1]
    rising = slopes[:, 2:] / gaps[1:]
    return torch.clamp(torch.min(falling, rising), min=0.0)


def mel_filters(n_freqs: int, n_mels: int, sample_rate: int, f_min: float = 0.0, f_max: float = 4000.0):
    freqs = torch.linspace(0, sample_rate // 2, n_freqs)
    points = _from_mel(torch.linspace(_to_mel(f_min), _to_mel(f_max), n_mels + 2))
    bank = _triangles(freqs, points)
    if (bank.max(dim=0).values == 0.0).any():
        warnings.warn("a mel filter is all zero: too many mels for the frequency bins")
    return bank


class MelProjection(nn.Module):
    def forward(self, spec):
        return spec @ mel_filters(33, 6, 8000)


def build() -> nn.Module:
    return MelProjection()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 5, 33, generator=generator),)


DYNAMIC = {"spec": {0: "batch", 1: "frames"}}
TEST_LINE = "    if (bank.max(dim=0).values == 0.0).any():"
