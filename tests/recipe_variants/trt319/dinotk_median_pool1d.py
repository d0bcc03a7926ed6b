"""dino-tk's ``MedianPool1d``: a sequence is padded by reflection, unfolded into windows along time
(``x.unfold(2, self.kernel, self.stride)``) and the median of each window taken as a method
(``x.median(dim=-1)[0]``).

Reduced from DinoMan/dino-tk, commit 272d98d6d4156061ec0fadcc0ca02c01650acb24,
dtk/nn/modules.py, ``MedianPool1d`` lines 248-258 (the median at line 258). Written here in our
own words, with a padding of one step each side, between two 1-D convolutions so the model has
weights (a smoothing stage of a speech or landmark sequence model).
"""

import torch
from torch import nn


class MedianPool1d(nn.Module):
    def __init__(self, kernel: int = 3, stride: int = 1, padding: int = 1) -> None:
        super().__init__()
        self.kernel = kernel
        self.stride = stride
        self.pad = nn.ReflectionPad1d(padding)

    def forward(self, x):
        x = self.pad(x)
        x = x.unfold(2, self.kernel, self.stride)
        return x.median(dim=-1)[0]


class SmoothedSequence(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Conv1d(4, 6, 3, padding=1)
        self.smooth = MedianPool1d(kernel=3)
        self.decode = nn.Conv1d(6, 4, 1)

    def forward(self, sequence: torch.Tensor) -> torch.Tensor:
        return self.decode(self.smooth(self.encode(sequence)))


def build() -> nn.Module:
    return SmoothedSequence()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 11, generator=generator),)


DYNAMIC = {"sequence": {0: "batch", 2: "time"}}
