"""SpeechBrain's linear-prediction coefficients: the autocorrelation of each frame is laid out as
a Toeplitz matrix of ``lpc_order`` rows (``unfold`` of the lags, flipped) and the normal equations
are solved with ``lpc = torch.linalg.solve(R, r)`` (a batch of lpc_order x lpc_order matrices, one
per frame, against a batch of vectors), then padded into the inverse filter's coefficients
``1, -b_1, ..., -b_p``.

Reduced from speechbrain 1.1.2 (the PyPI wheel), speechbrain/processing/vocal_features.py,
``inverse_filter`` (lines 356-416; the solve at line 405) and ``compute_cross_correlation``
(lines 472-520). Written here in our own words: the cross-correlation (a grouped ``conv1d`` over circularly padded
frames in the original) is a sum of products with the frames shifted by each lag, and the model
returns the filter's coefficients rather than running ``torchaudio.functional.lfilter`` with them.
The Toeplitz layout is kept as written, ``unfold`` after a ``view(..., -1)``: the TorchScript
exporter cannot see the length it slides over either (TRT311 and TRT330 take that call), so the
original needs three recipes to export.
"""

import torch
import torch.nn.functional as F
from torch import nn


def autocorrelation(frames, width: int):
    size = frames.shape[-1]
    padded = torch.cat([frames[..., size - width:], frames, frames[..., :width]], -1)
    lags = torch.stack([padded[..., j:j + size] for j in range(2 * width + 1)], 2)
    correlation = (lags * frames.unsqueeze(2)).sum(-1)
    norm = (frames ** 2).sum(-1)
    return correlation / norm.unsqueeze(-1).clamp(min=1e-10)


class InverseFilterCoefficients(nn.Module):
    def __init__(self, lpc_order: int = 8) -> None:
        super().__init__()
        self.lpc_order = lpc_order

    def forward(self, frames):
        lpc_order = self.lpc_order
        correlation = autocorrelation(frames, lpc_order)
        batch, frame_count, _ = correlation.shape
        correlation = correlation.reshape(batch * frame_count, -1)
        correlation[:, lpc_order] = 1.0
        R = correlation[:, 1:-1].unfold(-1, lpc_order, 1).flip(dims=(1,))
        r = correlation[:, lpc_order + 1:]
        lpc = torch.linalg.solve(R, r)
        lpc_coeffs = F.pad(-lpc, (1, 0), value=1)
        return lpc_coeffs.reshape(batch, frame_count, -1)


def build() -> nn.Module:
    return InverseFilterCoefficients()


def voiced(generator: torch.Generator, batch: int, count: int, size: int = 40) -> torch.Tensor:
    """Frames of a decaying two-tone signal with noise, as speech frames look to the filter."""
    t = torch.arange(size, dtype=torch.float32)
    freqs = 0.1 + 0.3 * torch.rand(batch, count, 2, 1, generator=generator)
    tones = torch.sin(2 * torch.pi * freqs * t).sum(-2) * torch.exp(-t / size)
    return tones + 0.3 * torch.randn(batch, count, size, generator=generator)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (voiced(generator, 2, 5),)


DYNAMIC = {"frames": {0: "batch", 1: "frames"}}
