"""Qwen2.5-Omni's audio encoder packs its chunks for flash attention: the chunk lengths after a
stride-2 convolution are accumulated and a leading zero is put in front of the cumulative sum,
``F.pad(after_conv1.cumsum(0), (1, 0), value=0)``: one pad before, on the only (last) axis, of
an integer tensor, then cast to int32.

Reduced from huggingface/transformers at tag v5.24.0 (the PyPI release the zoo unpacks),
src/transformers/models/qwen2_5_omni/modeling_qwen2_5_omni.py:753-769 (``get_audio_cu_seqlens``:
``after_conv1 = (chunk_lengths - 1) // 2 + 1`` and the padded cumulative sum), written
here in our own words without the ``cu_seqlens`` keyword shortcut.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ChunkBoundaries(nn.Module):
    def forward(self, chunk_lengths: Tensor) -> Tensor:
        after_conv1 = (chunk_lengths - 1) // 2 + 1
        return F.pad(after_conv1.cumsum(0), (1, 0), value=0).to(torch.int32)


def build() -> nn.Module:
    return ChunkBoundaries()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(1, 200, (5,), generator=generator),)


DYNAMIC = {"chunk_lengths": {0: "chunks"}}
