"""Demucs v3 pads the waveform to a length its strided encoder and decoder map back exactly:
``valid_length(self, length)`` doubles the length first when the model resamples (``if self.resample:
length *= 2``), walks it down the encoder's strides and up the decoder's with ``math.ceil`` and
``max(1, ...)``, and halves it back; ``forward`` pads by ``delta = self.valid_length(length) - length``
with ``length = x.shape[-1]`` and crops the output to ``length`` again. Traced by the TorchScript
exporter, ``length`` is a 0-d tensor, the ``*=`` writes into it, and ``forward``'s ``length`` is
doubled by the call: the pad turns into a crop of the whole waveform, and the export stops at the
resampling of an empty one (in Demucs itself, at a convolution given 2 samples for a kernel of 8).

Reduced from demucs 4.1.0 (the PyPI wheel, github.com/adefossez/demucs), demucs/demucs.py:
``Demucs.valid_length`` (lines 368-391) and the start and end of ``Demucs.forward`` (lines 393-447),
as zoo 60's ``demucs_v3_waveform`` runs it. Written here in our own words: julius' sinc resampling is
a linear interpolation by 2 and an average of pairs, and the encoder and decoder are two strided
convolutions each, without the GLU, DConv branches and BiLSTM.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class WaveUNet(nn.Module):
    def __init__(self, depth: int = 2, kernel_size: int = 8, stride: int = 4, resample: bool = True) -> None:
        super().__init__()
        self.depth, self.kernel_size, self.stride, self.resample = depth, kernel_size, stride, resample
        self.encoder = nn.ModuleList(nn.Conv1d(1 if i == 0 else 4, 4, kernel_size, stride) for i in range(depth))
        self.decoder = nn.ModuleList(nn.ConvTranspose1d(4, 1 if i == depth - 1 else 4, kernel_size, stride)
                                     for i in range(depth))

    def valid_length(self, length):
        if self.resample:
            length *= 2
        for _ in range(self.depth):
            length = math.ceil((length - self.kernel_size) / self.stride) + 1
            length = max(1, length)
        for _ in range(self.depth):
            length = (length - 1) * self.stride + self.kernel_size
        if self.resample:
            length = math.ceil(length / 2)
        return int(length)

    def forward(self, mix):
        length = mix.shape[-1]
        delta = self.valid_length(length) - length
        x = F.pad(mix, (delta // 2, delta - delta // 2))
        if self.resample:
            x = F.interpolate(x, scale_factor=2.0, mode="linear", align_corners=False)
        for encode in self.encoder:
            x = torch.relu(encode(x))
        for decode in self.decoder:
            x = decode(x)
        if self.resample:
            x = x.view(x.shape[0], x.shape[1], -1, 2).mean(-1)
        return x[..., delta // 2:delta // 2 + length]


def build() -> nn.Module:
    return WaveUNet()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 50, generator=generator),)


DYNAMIC = {"mix": {0: "batch", 2: "time"}}
CALL = "length *= 2"
