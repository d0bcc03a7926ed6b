"""Demucs's ``center_trim(tensor, reference)``: the reference is a tensor (a skip connection is trimmed to the
decoder's length) or an int (the output is trimmed to the input's length).

Reduced from Demucs 4.0.1 (Alexandre Défossez, Meta AI, github.com/facebookresearch/demucs), ``demucs/utils.py``
``center_trim`` (lines 39-57) and ``demucs/demucs.py`` ``Demucs.forward`` (lines 399-436), as zoo 60's
``demucs_v3_waveform`` runs them. ``center_trim`` asks ``isinstance(reference, torch.Tensor)`` to tell the two
apart: under the TorchScript exporter the length handed in as ``length = x.shape[-1]`` is a 0-d tensor, so the
export takes the tensor's branch and ``reference.size(-1)`` of a 0-d tensor stops it (IndexError). Written here
in our own words: two encoder layers (a strided convolution and a ReLU), two decoder layers (a transposed
convolution and a ReLU), the input padded to a length the strides take whole and the skips trimmed to the
decoder's, no LSTM, normalisation or resampling.
"""

import math
import typing as tp

import torch
import torch.nn.functional as F
from torch import nn


def center_trim(tensor: torch.Tensor, reference: tp.Union[torch.Tensor, int]):
    ref_size: int
    if isinstance(reference, torch.Tensor):
        ref_size = reference.size(-1)
    else:
        ref_size = reference
    delta = tensor.size(-1) - ref_size
    if delta < 0:
        raise ValueError("tensor must be larger than reference. " f"Delta is {delta}.")
    if delta:
        tensor = tensor[..., delta // 2:-(delta - delta // 2)]
    return tensor


class TinyDemucs(nn.Module):
    def __init__(self, channels: int = 4, kernel_size: int = 8, stride: int = 4, depth: int = 2) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.depth = kernel_size, stride, depth
        self.encoder = nn.ModuleList()
        self.decoder = nn.ModuleList()
        chin = 1
        for index in range(depth):
            self.encoder.append(nn.Sequential(nn.Conv1d(chin, channels, kernel_size, stride), nn.ReLU()))
            self.decoder.insert(0, nn.Sequential(nn.ConvTranspose1d(channels, chin, kernel_size, stride),
                                                 nn.ReLU() if index > 0 else nn.Identity()))
            chin = channels

    def valid_length(self, length: int) -> int:
        for _ in range(self.depth):
            length = math.ceil((length - self.kernel_size) / self.stride) + 1
            length = max(1, length)
        for _ in range(self.depth):
            length = (length - 1) * self.stride + self.kernel_size
        return int(length)

    def forward(self, mix):
        x = mix
        length = x.shape[-1]
        delta = self.valid_length(length) - length
        x = F.pad(x, (delta // 2, delta - delta // 2))
        saved = []
        for encode in self.encoder:
            x = encode(x)
            saved.append(x)
        for decode in self.decoder:
            skip = saved.pop(-1)
            skip = center_trim(skip, x)
            x = decode(x + skip)
        return center_trim(x, length)


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyDemucs().eval()


def inputs(generator: torch.Generator | None = None) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 70, generator=generator),)


DYNAMIC = {"mix": {0: "batch", 2: "time"}}
