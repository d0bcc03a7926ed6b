"""Ultimate Vocal Remover keeps Demucs v2 beside its own driver: ``Demucs.valid_length(self, length)`` in
``demucs/model_v2.py`` (lines 161-185) doubles the length when the model resamples (``if self.resample:
length *= 2``), walks it down the encoder with ``math.ceil`` and ``max(1, ...)`` and adds the context of each
layer with a second augmented assignment (``length += self.context - 1``), then up the decoder and halves it.
Unlike Demucs v3, the model's ``forward`` never calls it: the driver does, ``apply_model`` in
``demucs/apply.py`` (lines 264-272) takes ``valid_length = model.valid_length(length)`` on another object,
pads the mix to it centred, runs the model and crops its output back with ``center_trim(out, length)``.
Traced by the TorchScript exporter, ``length`` is a 0-d tensor and the ``*=`` writes into the driver's own
``length``: the crop asks for twice the samples the model gave, and the export stops at a slice past the end.

Reduced from Anjok07/ultimatevocalremovergui @ 5517e0cf0d1acd16a1618eeedec596957523f9e1, demucs/model_v2.py
``Demucs.valid_length`` and the padding branch of demucs/apply.py ``apply_model``, written in our own words
as one wrapper module (the driver) around a two-layer model. Kept: both augmented assignments, the call on a
submodule, the centred pad and the centred crop. Reduced: julius' resampling is a linear interpolation by 2
and an average of pairs; the GLU, BiLSTM, normalisation and the chunked ``TensorChunk`` padding are left out.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class DemucsV2(nn.Module):
    def __init__(self, depth: int = 2, kernel_size: int = 8, stride: int = 4, context: int = 3,
                 resample: bool = True) -> None:
        super().__init__()
        self.depth, self.kernel_size, self.stride = depth, kernel_size, stride
        self.context, self.resample = context, resample
        self.encoder = nn.ModuleList(nn.Conv1d(1 if i == 0 else 4, 4, kernel_size, stride) for i in range(depth))
        self.contexts = nn.ModuleList(nn.Conv1d(4, 4, context) for _ in range(depth))
        self.decoder = nn.ModuleList(nn.ConvTranspose1d(4, 1 if i == depth - 1 else 4, kernel_size, stride)
                                     for i in range(depth))

    def valid_length(self, length):
        if self.resample:
            length *= 2
        for _ in range(self.depth):
            length = math.ceil((length - self.kernel_size) / self.stride) + 1
            length = max(1, length)
            length += self.context - 1
        for _ in range(self.depth):
            length = (length - 1) * self.stride + self.kernel_size
        if self.resample:
            length = math.ceil(length / 2)
        return int(length)

    def forward(self, x):
        if self.resample:
            x = F.interpolate(x, scale_factor=2.0, mode="linear", align_corners=False)
        for encode in self.encoder:
            x = torch.relu(encode(x))
        for widen, decode in zip(self.contexts, self.decoder):
            x = decode(F.pad(widen(x), (self.context - 1, 0)))
        if self.resample:
            x = x.view(x.shape[0], x.shape[1], -1, 2).mean(-1)
        return x


class Separator(nn.Module):
    """``apply_model``'s padding branch as a module: pad to the valid length, run, crop back."""

    def __init__(self) -> None:
        super().__init__()
        self.model = DemucsV2()

    def forward(self, mix):
        length = mix.shape[-1]
        valid_length = self.model.valid_length(length)
        delta = valid_length - length
        out = self.model(F.pad(mix, (delta // 2, delta - delta // 2)))
        start = (out.shape[-1] - length) // 2
        return out[..., start:start + length]


def build() -> nn.Module:
    return Separator()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 50, generator=generator),)


DYNAMIC = {"mix": {0: "batch", 2: "time"}}
CALL = "length *= 2"
