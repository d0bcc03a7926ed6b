"""Mimicry's self-attention layer for GANs (SAGAN, as in BigGAN): the key and value paths are
max-pooled 2x2, so their number of locations is a quarter of ``H * W``, computed with a shift
(``downsampled_num = location_num >> 2``), and the channel counts of the three paths are the
input's shifted right (``C >> 3`` for the query and key, ``C >> 1`` for the value) in the
``view`` calls.

Reduced from kwotsin/mimicry at commit a7fda06c4aff1e6af8dc4c4a35ed6636e434c766,
torch_mimicry/modules/layers.py, ``SelfAttention.__init__`` (lines 16-31, the branch without
spectral norm) and ``SelfAttention.forward`` (lines 75-118; the shifts at lines 92, 96, 101, 111
and 115). Written here in our own words. The layer needs even heights and widths (the 2x2 pooling
must keep a quarter of the locations), so the dynamic sizes are taken even.
"""

import torch
import torch.nn.functional as F
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, num_feat: int = 16) -> None:
        super().__init__()
        self.num_feat = num_feat
        self.theta = nn.Conv2d(num_feat, num_feat >> 3, 1, 1, padding=0, bias=False)
        self.phi = nn.Conv2d(num_feat, num_feat >> 3, 1, 1, padding=0, bias=False)
        self.g = nn.Conv2d(num_feat, num_feat >> 1, 1, 1, padding=0, bias=False)
        self.o = nn.Conv2d(num_feat >> 1, num_feat, 1, 1, padding=0, bias=False)
        self.gamma = nn.Parameter(torch.tensor(0.5))

    def forward(self, x):
        N, C, H, W = x.shape
        location_num = H * W
        downsampled_num = location_num >> 2
        theta = self.theta(x).view(N, C >> 3, location_num)
        phi = F.max_pool2d(self.phi(x), [2, 2], stride=2)
        phi = phi.view(N, C >> 3, downsampled_num)
        attn = F.softmax(torch.bmm(theta.transpose(1, 2), phi), -1)
        g = F.max_pool2d(self.g(x), [2, 2], stride=2)
        g = g.view(N, C >> 1, downsampled_num)
        attn_g = torch.bmm(g, attn.transpose(1, 2))
        attn_g = attn_g.view(N, C >> 1, H, W)
        return x + self.gamma * self.o(attn_g)


def build() -> nn.Module:
    return SelfAttention().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, 6, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
