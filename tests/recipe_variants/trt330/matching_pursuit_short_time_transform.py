"""matching-pursuit's short-time transform: a signal padded, framed positionally at -1, windowed, projected.

Reduced from JohnVinyard/matching-pursuit at commit 69b7e17ecbd769c1a6f7a5ae75a0b8ad3157aeb3,
modules/stft.py: ``short_time_transform`` (lines 100-115). The window size is read from the
filter bank (``basis.shape[1]``) and the hop is half of it; the ``(batch, channels, time)`` signal is
padded on the right by one hop, framed with ``x.unfold(-1, ws, ss)``, multiplied by a Hamming window
broadcast as ``[None, None, None, :]``, multiplied by the bank's transpose with ``@`` and cut to the
first ``ws // 2 + 1`` filters. Written here in our own words; the repository's bank is a complex
Morlet bank from scipy (``morlet_filter_bank``), replaced here by a real cosine bank held as a
buffer, and the Hamming window, made in the function there (``torch.hamming_window``, an operator
the TorchScript exporter does not take), is passed in as a buffer here. The module calls it with
``pad=False``, the framing on the signal as given (padded, the form is not taken: see the test).
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def short_time_transform(x, basis, window, pad=True):
    ws = basis.shape[1]
    ss = ws // 2
    if pad:
        x = F.pad(x, (0, ss))
    windowed = x.unfold(-1, ws, ss)
    windowed = windowed * window[None, None, None, :].to(x.device)
    freq_domain = windowed @ basis.T
    return freq_domain[..., : (ws // 2 + 1)]


class ShortTimeTransform(nn.Module):
    def __init__(self, window: int = 16, filters: int = 12) -> None:
        super().__init__()
        time = torch.arange(window, dtype=torch.float32)
        centres = torch.linspace(1.0, window / 2, filters)[:, None]
        bank = torch.cos(2 * math.pi * centres * time / window)
        self.register_buffer("basis", bank / bank.norm(dim=-1, keepdim=True))
        self.register_buffer("window", torch.hamming_window(window))

    def forward(self, x):
        return short_time_transform(x, self.basis, self.window, pad=False)


def build() -> nn.Module:
    return ShortTimeTransform().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 64, generator=generator),)


DYNAMIC = {}
