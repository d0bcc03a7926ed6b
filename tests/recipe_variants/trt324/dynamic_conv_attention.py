"""Dynamic convolution: K kernels mixed per sample by softmax attention, with a mixed bias.

Reduced from kaijieshi7/Dynamic-convolution-Pytorch @ 4befa50c97de72cd093316edb29522e8ebd8fc5e,
dynamic_conv.py:171-188 (``Dynamic_conv2d.forward``: ``x.view(1, -1, height, width)``, ``torch.mm`` of the
attention with the kernel bank, ``F.conv2d(..., groups=self.groups*batch_size)``) and :9-45 (``attention2d``,
reduced to a pooled linear head with a temperature). Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


class MixedConv(nn.Module):
    def __init__(self, cin=3, cout=4, k=3, kernels=4, dilation=2, temperature=3.0):
        super().__init__()
        self.cin, self.cout, self.k, self.kernels, self.dilation = cin, cout, k, kernels, dilation
        self.temperature = temperature
        self.attend = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, kernels))
        self.weight = nn.Parameter(torch.randn(kernels, cout, cin, k, k) / 4)
        self.bias = nn.Parameter(torch.randn(kernels, cout))

    def forward(self, x):
        attention = F.softmax(self.attend(x) / self.temperature, 1)
        batch_size, in_planes, height, width = x.size()
        x = x.view(1, -1, height, width)
        bank = self.weight.view(self.kernels, -1)
        weight = torch.mm(attention, bank).view(batch_size * self.cout, self.cin, self.k, self.k)
        bias = torch.mm(attention, self.bias).view(-1)
        out = F.conv2d(x, weight=weight, bias=bias, stride=1, padding=self.dilation, dilation=self.dilation,
                       groups=batch_size)
        return out.view(batch_size, self.cout, out.size(-2), out.size(-1))


def build() -> nn.Module:
    return MixedConv()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 3, 10, 12, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
