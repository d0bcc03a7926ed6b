"""Graphcore's PopART custom-op example: the PyTorch reference network, its convolution given a one-element
padding list.

Reduced from graphcore/popart @ d2f20d78db91f62a22dc39470e294b0d987055c5, docs/popart/files/custom_op.py:
the module-level ``kernel_size = 3`` and ``padding = 1`` (lines 20-21) and ``Net`` (lines 88-99), which
builds ``self.conv = nn.Conv2d(chans_in, chans_out, kernel_size, padding=[padding])`` (line 91) and runs
the convolution and a LeakyReLU, to check the IPU graph's output against PyTorch's (the IPU graph gets
``pads=[padding] * 4`` written out). Unlike the EfficientNet variants, the one-element list is the padding,
written as a literal at the call. Written here in our own words: three input channels, two convolutions.
"""

import torch
from torch import nn

KERNEL = 3
PAD = 1


class ReferenceNet(nn.Module):
    def __init__(self, cin: int = 3, cout: int = 4) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, KERNEL, padding=[PAD])
        self.act = nn.LeakyReLU()
        self.head = nn.Conv2d(cout, 2, 1)

    def forward(self, x):
        return self.head(self.act(self.conv(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return ReferenceNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 6, 7, generator=generator),)


DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
