"""PatchTST's patchify: a look-back window cut into patches along time, keyword arguments, dimension -2.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/patchtst/modeling_patchtst.py:
``PatchTSTPatchify.__init__`` and ``PatchTSTPatchify.forward`` (lines 301-345). The module works out,
from the configured context length, patch length and stride, how many whole patches fit and where
the first one starts; ``forward`` refuses another sequence length, drops the samples before that
start, calls ``output.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)`` on the
``(batch, length, channels)`` tensor and swaps the patch and channel axes. Written here in our own
words; a linear patch projection and a learned position table, as PatchTST's embedding adds
further on, stand in for the encoder, so the export meets the patch axis where it is wrong.
"""

import torch
from torch import nn


class Patchify(nn.Module):
    def __init__(self, context_length: int, patch_length: int, patch_stride: int) -> None:
        super().__init__()
        if context_length <= patch_length:
            raise ValueError("the context must be longer than one patch")
        self.sequence_length = context_length
        self.patch_length = patch_length
        self.patch_stride = patch_stride
        self.num_patches = (max(context_length, patch_length) - patch_length) // patch_stride + 1
        used = patch_length + patch_stride * (self.num_patches - 1)
        self.sequence_start = context_length - used

    def forward(self, past_values):
        if past_values.shape[-2] != self.sequence_length:
            raise ValueError("the input's length is not the configured context length")
        output = past_values[:, self.sequence_start:, :]
        output = output.unfold(dimension=-2, size=self.patch_length, step=self.patch_stride)
        return output.transpose(-2, -3).contiguous()


class PatchEncoder(nn.Module):
    def __init__(self, context_length: int = 20, patch_length: int = 6, patch_stride: int = 4,
                 d_model: int = 8) -> None:
        super().__init__()
        self.patchifier = Patchify(context_length, patch_length, patch_stride)
        self.projection = nn.Linear(patch_length, d_model)
        self.position = nn.Parameter(torch.randn(self.patchifier.num_patches, d_model) * 0.1)

    def forward(self, past_values):
        patches = self.patchifier(past_values)  # (batch, channels, patches, patch_length)
        return self.projection(patches) + self.position


def build() -> nn.Module:
    torch.manual_seed(0)
    return PatchEncoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 20, 3, generator=generator),)


DYNAMIC = {"past_values": {0: "batch"}}
