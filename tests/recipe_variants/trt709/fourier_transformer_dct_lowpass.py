"""Fourier Transformer's DCT of the hidden states along time: a DCT-II written with ``torch.fft.fft``,
whose result is kept in a variable and read only through ``.real`` and ``.imag``.

Reduced from LUMIA-Group/FourierTransformer at commit cba1dc229b2faa0f24e5d22cea85f13eb4990097,
Summarization/transformer_dct/dct.py, ``dct`` (lines 9-38: adapted there from torch-dct; the even
and reversed odd samples side by side, ``Vc = torch.fft.fft(v, dim=1)``, then ``Vc.real * W_r -
Vc.imag * W_i`` with the twiddles ``cos`` and ``sin`` of ``-pi k / 2N``, scaled for
``norm='ortho'``), and Summarization/transformer_dct/transformer_encoder.py, ``dc_transform``
(lines 284-295: the encoder's ``T x B x C`` states cast to float32, transformed along time, the
first ``ceil(T * dct_percentage)`` coefficients kept). Written here in our own words. Left out:
the inverse transform that follows there (``idct``), the cast back to half precision and the
fairseq encoder around it (a linear layer stands in for it); the number of time steps is fixed
when the model is built, as the kept share of them.
"""

import math

import numpy as np
import torch
from torch import nn

STEPS = 10
KEPT = 0.6  # dct_percentage


def dct(x, norm=None):
    x_shape = x.shape
    N = x_shape[-1]
    x = x.contiguous().view(-1, N)
    v = torch.cat([x[:, ::2], x[:, 1::2].flip([1])], dim=1)
    Vc = torch.fft.fft(v, dim=1)
    k = -torch.arange(N, dtype=x.dtype, device=x.device)[None, :] * np.pi / (2 * N)
    W_r = torch.cos(k)
    W_i = torch.sin(k)
    V = Vc.real * W_r - Vc.imag * W_i
    if norm == "ortho":
        V[:, 0] /= np.sqrt(N) * 2
        V[:, 1:] /= np.sqrt(N / 2) * 2
    return 2 * V.view(*x_shape)


class DctLowPassEncoder(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.embed = nn.Linear(dim, dim)

    def forward(self, x):
        x = self.embed(x).type(torch.float32)  # T x B x C
        x_dct = dct(x.transpose(0, 2), norm="ortho").transpose(0, 2)
        T, B, C = x_dct.size()
        return x_dct[:math.ceil(T * KEPT), :, :]


def build() -> nn.Module:
    return DctLowPassEncoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(STEPS, 3, 8, generator=generator),)


# The time steps are fixed (the share kept is a Python number of them): the batch varies.
DYNAMIC = {"x": {1: "batch"}}
