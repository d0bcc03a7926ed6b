"""Vocos' ISTFT head: windowed frames overlap-added with ``torch.nn.functional.fold``.

Reduced from gemelo-ai/vocos at commit f913b35702ef8072b516dcb50cc7c4dd0df29b4d,
vocos/spectral_ops.py, ``ISTFT.forward`` (lines 33-75; the folds at lines 61-63 and 67-69),
"same" padding, behind vocos/heads.py ``ISTFTHead.forward`` (lines 44-64 at commit
19f7bfb6acdd5d3579735a086fa5c2e76b9cc231: a linear layer to magnitude and phase, the magnitude
exponentiated and clipped at 100): the inverse FFT's frames are windowed and overlap-added by
``torch.nn.functional.fold(`` with the input positional and ``output_size=(1, output_size),
kernel_size=(1, self.win_length), stride=(1, self.hop_length),`` (trailing comma) on one
continuation line, subscripted ``[:, 0, 0, pad:-pad]``; the squared window is folded the same way
into the envelope (``.squeeze()[pad:-pad]``), which must stay above 1e-11 (an ``assert``), and
the signal is divided by it. Written here in our own words with a 16-point FFT and a hop of 4.
The complex spectrum (``mag * exp(1j * phase)``) and the inverse real FFT, which the TorchScript
exporter cannot write, are taken as the cosine and sine of the phase and the inverse FFT's real
matrix form (two matrix products with tables), so that the folds are what stop the export.
The number of frames varies.
"""

import math

import torch
from torch import nn


def _inverse_rfft_tables(n_fft):
    """Tables ``(real, imag)`` with ``irfft(X, n_fft) == real @ X.real + imag @ X.imag`` over the bins."""
    bins = n_fft // 2 + 1
    sample = torch.arange(n_fft, dtype=torch.float64)[:, None]
    k = torch.arange(bins, dtype=torch.float64)[None, :]
    weight = torch.full((bins,), 2.0, dtype=torch.float64)
    weight[0] = 1.0
    if n_fft % 2 == 0:
        weight[-1] = 1.0
    angle = 2 * math.pi * sample * k / n_fft
    return ((weight * torch.cos(angle)) / n_fft).float(), ((-weight * torch.sin(angle)) / n_fft).float()


class ISTFTHead(nn.Module):
    def __init__(self, dim=6, n_fft=16, hop_length=4):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = n_fft
        self.out = nn.Linear(dim, n_fft + 2)
        self.register_buffer("window", torch.hann_window(n_fft))
        real, imag = _inverse_rfft_tables(n_fft)
        self.register_buffer("irfft_real", real)
        self.register_buffer("irfft_imag", imag)

    def forward(self, x):
        predicted = self.out(x).transpose(1, 2)
        magnitude, phase = predicted.chunk(2, dim=1)
        magnitude = torch.clip(torch.exp(magnitude), max=1e2)
        pad = (self.win_length - self.hop_length) // 2
        B, N, T = magnitude.shape

        ifft = self.irfft_real @ (magnitude * torch.cos(phase)) + self.irfft_imag @ (magnitude * torch.sin(phase))
        ifft = ifft * self.window[None, :, None]

        output_size = (T - 1) * self.hop_length + self.win_length
        y = torch.nn.functional.fold(
            ifft, output_size=(1, output_size), kernel_size=(1, self.win_length), stride=(1, self.hop_length),
        )[:, 0, 0, pad:-pad]

        window_sq = self.window.square().expand(1, T, -1).transpose(1, 2)
        window_envelope = torch.nn.functional.fold(
            window_sq, output_size=(1, output_size), kernel_size=(1, self.win_length), stride=(1, self.hop_length),
        ).squeeze()[pad:-pad]

        assert (window_envelope > 1e-11).all()
        return y / window_envelope


def build() -> nn.Module:
    torch.manual_seed(0)
    return ISTFTHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 9, 6, generator=generator),)


DYNAMIC = {"x": {0: "batch", 1: "frames"}}
