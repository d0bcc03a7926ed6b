"""A U-Net decoder block that pads the upsampled map up to its skip connection's size, the pad
widths computed from the two shapes as a tensor and handed to ``F.pad`` with ``.tolist()``.

Reduced from romainVala/unet@28e8b3bff25c1b840d8462d04da540a8652ad1ec unet/decoding.py:135-145
(``DecodingBlock.center_crop``): ``torch.tensor`` of both shapes, the spatial difference split into
``crop // 2`` and ``crop // 2 + crop % 2`` (an odd difference pads one more after), stacked and
flattened into ``pad``, then ``x = F.pad(x, pad.tolist())`` before the concatenation. fepegar/unet
0.8.1 (zoo 24) crops the skip connection instead, with a negated pad of ``(crop / 2).int()`` twice.
Written here in our own words; the upsampling and the convolutions after the concatenation are left
out (the block takes the upsampled map), and the maps are square, as the library's pad order (the
first spatial axis's widths go to the last axis) is right only for equal differences.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PadUpToSkip(nn.Module):
    def forward(self, skip: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        skip_size = torch.tensor(skip.shape)
        up_size = torch.tensor(up.shape)
        diff = skip_size[2:] - up_size[2:]
        before = diff // 2
        after = before + diff % 2
        widths = torch.stack((before, after)).t().flatten()
        up = F.pad(up, widths.tolist())
        return torch.cat((skip, up), dim=1)


def build() -> nn.Module:
    return PadUpToSkip()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 2, 11, 11, generator=generator), torch.randn(1, 3, 8, 8, generator=generator)


DYNAMIC = {"skip": {0: "batch", 2: "height", 3: "width"}, "up": {0: "batch", 2: "up_height", 3: "up_width"}}
