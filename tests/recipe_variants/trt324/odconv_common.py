"""Omni-dimensional dynamic convolution: attention-mixed kernels per sample, the batch folded into the groups.

Reduced from OSVAI/ODConv @ 0901cc1ccd75757b40420447db20603d30bd2f74, modules/odconv.py:116-129
(``ODConv2d._forward_impl_common``: ``x.reshape(1, -1, height, width)``, the kernel bank weighted by spatial and
kernel attention and summed, ``F.conv2d(..., groups=self.groups * batch_size)``); the attention branch
(modules/odconv.py:9-85) reduced to four linear heads. Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class OmniAttention(nn.Module):
    def __init__(self, cin, cout, k, kernels):
        super().__init__()
        self.k = k
        self.squeeze = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 8), nn.ReLU())
        self.channel = nn.Linear(8, cin)
        self.filter = nn.Linear(8, cout)
        self.spatial = nn.Linear(8, k * k)
        self.kernel = nn.Linear(8, kernels)

    def forward(self, x):
        s = self.squeeze(x)
        channel = torch.sigmoid(self.channel(s)).view(x.size(0), -1, 1, 1)
        filt = torch.sigmoid(self.filter(s)).view(x.size(0), -1, 1, 1)
        spatial = torch.sigmoid(self.spatial(s)).view(x.size(0), 1, 1, 1, self.k, self.k)
        kernel = F.softmax(self.kernel(s).view(x.size(0), -1, 1, 1, 1, 1), dim=1)
        return channel, filt, spatial, kernel


class OmniConv(nn.Module):
    def __init__(self, cin=4, cout=6, k=3, stride=2, padding=1, groups=2, kernels=3):
        super().__init__()
        self.cin, self.cout, self.k, self.stride, self.padding, self.groups = cin, cout, k, stride, padding, groups
        self.attention = OmniAttention(cin, cout, k, kernels)
        self.weight = nn.Parameter(torch.randn(kernels, cout, cin // groups, k, k) / 3)

    def forward(self, x):
        channel, filt, spatial, kernel = self.attention(x)
        batch_size, in_planes, height, width = x.size()
        x = x * channel
        x = x.reshape(1, -1, height, width)
        mixed = (spatial * kernel * self.weight.unsqueeze(dim=0)).sum(dim=1)
        mixed = mixed.view([-1, self.cin // self.groups, self.k, self.k])
        out = F.conv2d(x, weight=mixed, bias=None, stride=self.stride, padding=self.padding, dilation=1,
                       groups=self.groups * batch_size)
        out = out.view(batch_size, self.cout, out.size(-2), out.size(-1))
        return out * filt


def build() -> nn.Module:
    return OmniConv()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 4, 11, 9, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}}
