"""Asymmetric Non-local Networks (semantic segmentation) in PyTorch-Networks: the keys and values
of the non-local block are sampled by a spatial pyramid pooling, one
``nn.AdaptiveMaxPool2d(output_size=output_size)`` per size in ``[1, 3, 6, 8]``, appended in a loop
to an ``nn.ModuleList`` and concatenated, so the attention is over 110 pooled positions whatever the
feature map's size.

Reduced from shanglianlm0525/PyTorch-Networks at commit a6b6dd4b7876ba8473a08e116485a0492a88cd48,
Attention/ANN.py, ``SpatialPyramidPooling`` lines 12-25 (line 18
``self.pool_layers.append(nn.AdaptiveMaxPool2d(output_size=output_size))``, the loop over
``self.pool_layers`` and ``torch.cat``) and ``AFNB`` lines 58-92 (1x1 convolutions for query, key
and value, the pyramid pooling of key and value, softmax attention, the output convolution and the
residual). Written here in our own words: each pooled map is flattened from its channel axis and
the maps are concatenated along positions (the file flattens the batch too and reshapes, which only
works for one image; its ``view(b, c, -1)`` calls mix the channel counts), and the debugging
``print`` is left out.
"""

import torch
from torch import nn


class SpatialPyramidPooling(nn.Module):
    def __init__(self, output_sizes=(1, 3, 6, 8)) -> None:
        super().__init__()
        self.pool_layers = nn.ModuleList()
        for output_size in output_sizes:
            self.pool_layers.append(nn.AdaptiveMaxPool2d(output_size=output_size))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outputs = []
        for pool_layer in self.pool_layers:
            outputs.append(pool_layer(x).flatten(2))
        return torch.cat(outputs, dim=2)  # (B, C, 1 + 9 + 36 + 64)


class AFNB(nn.Module):
    def __init__(self, channel: int = 8) -> None:
        super().__init__()
        self.inter_channel = channel // 2
        self.conv_phi = nn.Conv2d(channel, self.inter_channel, kernel_size=1, bias=False)
        self.conv_theta = nn.Conv2d(channel, self.inter_channel, kernel_size=1, bias=False)
        self.conv_theta_spp = SpatialPyramidPooling()
        self.conv_g = nn.Conv2d(channel, self.inter_channel, kernel_size=1, bias=False)
        self.conv_g_spp = SpatialPyramidPooling()
        self.softmax = nn.Softmax(dim=-1)
        self.conv_mask = nn.Conv2d(self.inter_channel, channel, kernel_size=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.size()
        query = self.conv_phi(x).view(b, self.inter_channel, -1).permute(0, 2, 1)  # (B, HW, C/2)
        key = self.conv_theta_spp(self.conv_theta(x))  # (B, C/2, S)
        value = self.conv_g_spp(self.conv_g(x)).permute(0, 2, 1)  # (B, S, C/2)
        attention = self.softmax(torch.matmul(query, key))
        context = torch.matmul(attention, value).permute(0, 2, 1).contiguous().view(b, self.inter_channel, h, w)
        return self.conv_mask(context) + x


def build() -> nn.Module:
    return AFNB()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 12, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
