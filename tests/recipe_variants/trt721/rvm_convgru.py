"""Robust Video Matting's recurrent decoder state: the caller hands back last frame's hidden state,
or None on the first frame, and the ConvGRU starts from zeros of the input's size.

Reduced from PeterL1n/RobustVideoMatting at commit 53d74c6826735f01f4406b5ca9075eee27bec094,
model/decoder.py:150-192 (``ConvGRU``: the gates from ``ih`` over ``cat([x, h])`` split in two,
the candidate from ``hh`` over ``cat([x, r * h])``, ``h = (1 - z) * h + z * c``; ``forward`` with
``if h is None:`` binding ``torch.zeros`` of ``(x.size(0), x.size(-3), x.size(-2), x.size(-1))``
on the input's device and dtype) and model/model.py:40-47 (``MattingNetwork.forward(self, src, r1=None,
r2=None, r3=None, r4=None, ...)``, which passes each ``rN`` down to its ConvGRU and returns the new
ones). Written here in our own words with one recurrent stage inlined into the network's forward:
a convolution encodes the frame, half of its channels run through the GRU (as RVM's
``BottleneckBlock`` does), a 1x1 head gives the matte; single frames only.
"""

import torch
from torch import nn


class RecurrentMatting(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.channels = channels
        self.encode = nn.Conv2d(3, 2 * channels, 3, padding=1)
        self.ih = nn.Sequential(nn.Conv2d(channels * 2, channels * 2, 3, padding=1), nn.Sigmoid())
        self.hh = nn.Sequential(nn.Conv2d(channels * 2, channels, 3, padding=1), nn.Tanh())
        self.head = nn.Conv2d(2 * channels, 1, 1)

    def forward(self, src: torch.Tensor, r1=None) -> tuple[torch.Tensor, torch.Tensor]:
        a, x = self.encode(src).split(self.channels, dim=1)
        if r1 is None:
            r1 = torch.zeros((x.size(0), x.size(-3), x.size(-2), x.size(-1)), device=x.device, dtype=x.dtype)
        r, z = self.ih(torch.cat([x, r1], dim=1)).split(self.channels, dim=1)
        c = self.hh(torch.cat([x, r * r1], dim=1))
        r1 = (1 - z) * r1 + z * c
        pha = torch.sigmoid(self.head(torch.cat([a, r1], dim=1)))
        return pha, r1


def build() -> nn.Module:
    return RecurrentMatting().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 3, 6, 6, generator=generator), torch.randn(2, 4, 6, 6, generator=generator)


DYNAMIC: dict = {}
