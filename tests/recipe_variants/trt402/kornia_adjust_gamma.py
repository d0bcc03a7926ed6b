"""Kornia's gamma correction broadcasts a gamma and a gain per image: ``torch.unsqueeze(gamma,
dim=-1)`` in a loop that runs once per axis the image has more than the parameter, then
``gain * torch.pow(input, gamma)`` clamped to [0, 1].

Reduced from kornia/kornia at commit b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/enhance/adjust.py, ``adjust_gamma`` (lines 310-334: the parameters moved to the image's
device and dtype, the two loops adding trailing axes with the function form and a negative
``dim=`` keyword, the power, the gain and the clamp). Written here in our own words: the type
checks, the float parameters and the asynchronous non-negativity assertions are left out; gamma
and gain are given per image. The number of axes added is the rank's difference, a Python int
from shapes, so the loop unrolls to the same chain in both exporters.
"""

import torch
from torch import nn


class AdjustGamma(nn.Module):
    def forward(self, input: torch.Tensor, gamma: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
        gamma = gamma.to(input.device).to(input.dtype)
        gain = gain.to(input.device).to(input.dtype)
        for _ in range(len(input.shape) - len(gamma.shape)):
            gamma = torch.unsqueeze(gamma, dim=-1)
        for _ in range(len(input.shape) - len(gain.shape)):
            gain = torch.unsqueeze(gain, dim=-1)
        x_adjust = gain * torch.pow(input, gamma)
        return torch.clamp(x_adjust, 0.0, 1.0)


def build() -> nn.Module:
    return AdjustGamma()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 4, 5, generator=generator), 0.5 + torch.rand(2, generator=generator),
            0.5 + torch.rand(2, generator=generator))


DYNAMIC = {"input": {0: "batch", 2: "height", 3: "width"}, "gamma": {0: "batch"}, "gain": {0: "batch"}}
