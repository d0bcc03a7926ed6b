"""X-Codec 2's ISTFT head: the waveform and the window envelope overlap-added with ``F.fold``.

Reduced from huggingface/transformers 5.24.0, src/transformers/models/xcodec2/modeling_xcodec2.py,
``Xcodec2ISTFTHead.forward`` (lines 750-784; the layers in ``__init__``, lines 741-748): a linear
layer gives magnitude and phase (the magnitude exponentiated and clamped at 100, made complex with
``torch.polar``), the inverse real FFT gives the frames, which are windowed and overlap-added by
``F.fold(`` over five lines (the frames positional, then ``output_size=(1, output_size)``,
``kernel_size=(1, self.n_fft)``, ``stride=(1, self.hop_length)``, a trailing comma) subscripted
``[:, 0, 0, self.padding : -self.padding]``; the envelope folds the squared window expanded over
the frames, ``.squeeze()`` and trimmed, clamped at 1e-11, and divides the signal. Written here in
our own words with a 16-point FFT and a hop of 4. ``torch.polar`` and ``irfft`` (which the
TorchScript exporter cannot write) are taken as the cosine and sine of the phase and the inverse
FFT's real matrix form, so that the folds are what stop the export. The number of frames varies.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def _inverse_rfft_tables(n_fft):
    """``(real, imag)`` tables over the bins with ``irfft(X, n_fft) = X.real @ real + X.imag @ imag``."""
    k = torch.arange(n_fft // 2 + 1, dtype=torch.float64)[:, None]
    angle = 2 * math.pi * k * torch.arange(n_fft, dtype=torch.float64)[None, :] / n_fft
    twice = torch.ones_like(k) * 2
    twice[0] = 1
    twice[-1] = 1 if n_fft % 2 == 0 else 2
    return (twice * torch.cos(angle) / n_fft).float(), (-twice * torch.sin(angle) / n_fft).float()


class Xcodec2ISTFTHead(nn.Module):
    def __init__(self, hidden_size=6, n_fft=16, hop_length=4):
        super().__init__()
        self.linear = nn.Linear(hidden_size, n_fft + 2)
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.padding = (self.n_fft - self.hop_length) // 2
        self.window = nn.Buffer(torch.hann_window(n_fft), persistent=False)
        real, imag = _inverse_rfft_tables(n_fft)
        self.irfft_real = nn.Buffer(real, persistent=False)
        self.irfft_imag = nn.Buffer(imag, persistent=False)

    def forward(self, hidden_states):
        magnitude, phase = self.linear(hidden_states).chunk(2, dim=-1)
        magnitude = torch.exp(magnitude).clamp(max=1e2)
        frames = (magnitude * torch.cos(phase)) @ self.irfft_real + (magnitude * torch.sin(phase)) @ self.irfft_imag
        time_frames = frames.transpose(1, 2)
        time_frames = time_frames * self.window[None, :, None]
        num_frames = hidden_states.shape[1]
        output_size = (num_frames - 1) * self.hop_length + self.n_fft
        audio = F.fold(
            time_frames,
            output_size=(1, output_size),
            kernel_size=(1, self.n_fft),
            stride=(1, self.hop_length),
        )[:, 0, 0, self.padding : -self.padding]

        window_envelope = F.fold(
            self.window.square().expand(1, num_frames, -1).transpose(1, 2),
            output_size=(1, output_size),
            kernel_size=(1, self.n_fft),
            stride=(1, self.hop_length),
        ).squeeze()[self.padding : -self.padding]
        window_envelope = window_envelope.clamp(min=1e-11)
        audio = audio / window_envelope
        return audio.unsqueeze(1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Xcodec2ISTFTHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, 6, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "frames"}}
