"""A stereo pair padded to a multiple of 32 only when a side is not one, each image by the same amounts.

Reduced from the stereo-matching model zoo's S2M2 wrapper (zoo 33 of this project's blind zoos,
``stereo_matching/models/s2m2/modeling_s2m2.py:977-988``: ``pad_h = (32 - h % 32) % 32``, the same for
the width, ``if pad_h > 0 or pad_w > 0:`` then ``left_255 = F.pad(left_255, [0, pad_w, 0, pad_h],
mode="replicate")`` and the same line for ``right_255``; the network, then the disparity cropped back to
``[..., :h, :w]``), written here in our own words with a multiple of 8 and a small convolution for the
network and the pair handed in as one tensor of 6 channels.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Stereo(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Conv2d(6, 1, 3, padding=1)

    def forward(self, pair):
        left, right = pair[:, :3], pair[:, 3:]
        h, w = left.shape[-2:]
        pad_h = (8 - h % 8) % 8
        pad_w = (8 - w % 8) % 8
        if pad_h > 0 or pad_w > 0:
            left = F.pad(left, [0, pad_w, 0, pad_h], mode="replicate")
            right = F.pad(right, [0, pad_w, 0, pad_h], mode="replicate")
        disparity = self.net(torch.cat([left, right], dim=1))
        return disparity[..., :h, :w].squeeze(1)


def build() -> nn.Module:
    return Stereo()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 6, 16, 24, generator=generator),)


DYNAMIC = {"pair": {2: "h", 3: "w"}}
