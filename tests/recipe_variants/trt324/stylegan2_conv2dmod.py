"""StyleGAN2's modulated convolution: a style per sample scales and demodulates the kernel.

Reduced from lucidrains/stylegan2-pytorch @ ce7f830bc10d037cddc75d6166904baf07945cf6,
stylegan2_pytorch/stylegan2_pytorch.py:472-505 (``Conv2DMod.forward``: ``x.reshape(1, -1, h, w)``, the weights
reshaped to ``(b * self.filters, *ws)``, ``F.conv2d(x, weights, padding=padding, groups=b)``). Written here in
our own words; the style is a second input with the same batch.
"""

import torch
import torch.nn.functional as F
from torch import nn


class ModulatedConv(nn.Module):
    def __init__(self, cin=3, filters=5, kernel=3, eps=1e-8):
        super().__init__()
        self.filters, self.kernel, self.eps = filters, kernel, eps
        self.weight = nn.Parameter(torch.randn(filters, cin, kernel, kernel))

    def forward(self, x, style):
        b, c, h, w = x.shape
        weights = self.weight[None] * (style[:, None, :, None, None] + 1)
        weights = weights * torch.rsqrt((weights ** 2).sum(dim=(2, 3, 4), keepdim=True) + self.eps)
        x = x.reshape(1, -1, h, w)
        _, _, *ws = weights.shape
        weights = weights.reshape(b * self.filters, *ws)
        x = F.conv2d(x, weights, padding=(self.kernel - 1) // 2, groups=b)
        return x.reshape(-1, self.filters, h, w)


def build() -> nn.Module:
    return ModulatedConv()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    return (torch.randn(batch, 3, 8, 10, generator=generator), torch.randn(batch, 3, generator=generator))


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}, "style": {0: "batch"}}
