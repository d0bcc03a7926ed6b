"""transformers' FNet mixing layer: the real part of a 2-D FFT over the sequence and hidden axes.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/fnet/modeling_fnet.py:
``FNetBasicFourierTransform._init_fourier_transform`` (lines 143-162, the branch without the TPU
optimisations) and ``FNetBasicFourierTransform.forward`` (lines 164-171), with the residual and
layer norm of ``FNetBasicOutput`` around it. The transform is bound on the module as
``functools.partial(torch.fft.fftn, dim=(1, 2))`` when the model is built, and ``forward`` takes
``self.fourier_transform(hidden_states).real``. Written here in our own words. Form kept: the
transform reached through a ``partial`` held in an attribute, its ``.real`` taken at the call.
"""

from functools import partial

import torch
from torch import nn


class FNetMixing(nn.Module):
    def __init__(self, hidden: int = 16) -> None:
        super().__init__()
        self.fourier_transform = partial(torch.fft.fftn, dim=(1, 2))
        self.norm = nn.LayerNorm(hidden)

    def forward(self, hidden_states):
        outputs = self.fourier_transform(hidden_states).real
        return self.norm(hidden_states + outputs)


def build() -> nn.Module:
    return FNetMixing().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 7, 16, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 1: "sequence"}}
