"""ENet's decoder: an upsampling bottleneck whose two branches meet at the encoder's size.

Reduced from davidtvs/PyTorch-ENet at commit e17d404e2f649a3476eabe39f8a05e5eb77c55fd, models/enet.py:
``UpsamplingBottleneck`` (lines 384-466) adds a max-unpooled main branch to an extension branch
whose transposed convolution is called as ``self.ext_tconv1(ext, output_size=output_size)`` (line
455), ``output_size`` being the size of the map before the encoder's pooling; ``ENet.forward`` ends
with ``self.transposed_conv(x, output_size=input_size)`` (line 628). Here one stride-2 convolution
stands in for the encoder and the main branch is a nearest upsampling cut to the same size (the
repository's unpooling is TRT340's); the shapes meet the same way. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Upsampling(nn.Module):
    def __init__(self, channels: int = 8, out: int = 4) -> None:
        super().__init__()
        self.down = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.main_conv = nn.Conv2d(channels, out, 1)
        self.ext_conv = nn.Conv2d(channels, channels // 2, 1)
        self.ext_tconv = nn.ConvTranspose2d(channels // 2, out, kernel_size=3, stride=2, padding=1)
        self.last = nn.ConvTranspose2d(out, 2, kernel_size=3, stride=2, padding=1)

    def forward(self, image):
        size = image.size()
        x = torch.relu(self.down(image))
        main = F.interpolate(self.main_conv(x), scale_factor=2.0, mode="nearest")[..., : size[2], : size[3]]
        ext = self.ext_tconv(torch.relu(self.ext_conv(x)), output_size=size)
        x = torch.relu(main + ext)
        half = F.avg_pool2d(x, 2, ceil_mode=True)
        return self.last(half, output_size=size)


def build() -> nn.Module:
    return Upsampling().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 16, 24, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
