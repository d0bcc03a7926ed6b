"""anatome's Fourier shift: a spectrum in the old real layout centred and back, half of each side.

Reduced from moskomule/anatome at 53979417a4698e3067bb9c8952fed57aa9f91682, anatome/fourier.py: ``fft_shift``
(lines 4-17: the height and width axes listed by a comprehension over ``input.dim()``, ``shift =
[input.size(dim) // 2 for dim in dims]``, ``torch.roll(input, shift, dims)``) and ``ifft_shift`` (lines
20-33: the axes in the other order and ``shift = [-input.size(dim) // 2 for dim in dims]``). Written here in
our own words. Here the spectrum (``[B]xCxHxWx2``, the layout ``torch.rfft`` returned) is the input: the
model centres it, weighs it by a gate computed from its magnitude, and shifts it back. Form kept: the
shifts are a list computed from the sizes, handed to ``torch.roll`` with a list of axes.
"""

import torch
from torch import nn


def fft_shift(input: torch.Tensor) -> torch.Tensor:
    dims = [i for i in range(1 if input.dim() == 4 else 2, input.dim() - 1)]
    shift = [input.size(dim) // 2 for dim in dims]
    return torch.roll(input, shift, dims)


def ifft_shift(input: torch.Tensor) -> torch.Tensor:
    dims = [i for i in range(input.dim() - 2, 0 if input.dim() == 4 else 1, -1)]
    shift = [-input.size(dim) // 2 for dim in dims]
    return torch.roll(input, shift, dims)


class CentredGate(nn.Module):
    def __init__(self, channels: int = 3) -> None:
        super().__init__()
        self.gate = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, spectrum):
        centred = fft_shift(spectrum)
        magnitude = centred.pow(2).sum(-1).sqrt()
        weight = torch.sigmoid(self.gate(magnitude)).unsqueeze(-1)
        return ifft_shift(centred * weight)


def build() -> nn.Module:
    torch.manual_seed(0)
    return CentredGate().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 8, 12, 2, generator=generator),)


DYNAMIC = {"spectrum": {0: "batch", 2: "height", 3: "width"}}
