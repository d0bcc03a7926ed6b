"""Perceiver optical flow's input: 3x3 patches of two frames, then ``space_to_depth``.

Reduced from transformers 5.24.0, models/perceiver/modeling_perceiver.py: the optical-flow
preprocessor (``PerceiverImagePreprocessor`` with ``prep_type="patches"``, lines 3033-3046) calls
``space_to_depth`` (lines 2316-2360), which reads ``batch_size, time, num_channels, height, width =
frames.shape`` and views the frames with those sizes (line 2346), then flattens the pixels for the
encoder (``_build_network_inputs``, line 2984). Its input is two frames' 3x3 patches, built as the
zoo's model builds them: ``F.unfold(f, 3, padding=1).unflatten(2, f.shape[2:])`` per frame, stacked
along time. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def space_to_depth(frames, spatial_block_size=1):
    batch_size, time, num_channels, height, width = frames.shape
    frames = frames.view(batch_size, time, num_channels, height // spatial_block_size, spatial_block_size,
                         width // spatial_block_size, spatial_block_size)
    frames = frames.permute(0, 1, 3, 5, 4, 6, 2).contiguous()
    return frames.view(batch_size, time, height // spatial_block_size, width // spatial_block_size,
                       (spatial_block_size ** 2) * num_channels)


class FlowPatches(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(2 * 27, 16)

    def forward(self, x):
        frames = torch.stack([F.unfold(f, 3, padding=1).unflatten(2, f.shape[2:]) for f in x.split(3, 1)], 1)
        patches = space_to_depth(frames)
        batch_size, time, height, width, channels = patches.shape
        tokens = patches.permute(0, 2, 3, 1, 4).reshape(batch_size, height * width, time * channels)
        return self.proj(tokens)


def build() -> nn.Module:
    return FlowPatches().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 6, 8, 8, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
