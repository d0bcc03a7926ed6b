"""OKNet's frequency branches: a spectrum gated by a real tensor, its inverse's magnitude.

Reduced from c-yn/OKNet at commit 159cbc1b4791cf733e8db86a6fbb343a29e451d9,
Dehazing/ITS/models/OKNet.py: ``BottleNect.forward``'s frequency channel attention (lines 77-81:
``x_fft = torch.fft.fft2(out, norm='backward')``, ``x_fft = x_att * x_fft``, ``x_fca =
torch.fft.ifft2(x_fft, dim=(-2,-1), norm='backward')``, ``x_fca = torch.abs(x_fca)``) and
``FGM.forward`` (lines 105-118, the transform at 111, the magnitude at 116: ``x2_fft =
torch.fft.fft2(x2, norm='backward')``, ``out = x1 * x2_fft``, ``out = torch.fft.ifft2(out,
dim=(-2,-1), norm='backward')``, ``out = torch.abs(out)``).
Written here in our own words, with small channel counts and no large-kernel convolutions. Form
kept: the complex transform kept in a variable, multiplied by a real tensor (a pooled attention,
a 1x1 convolution of the input), the inverse complex transform rebinding a name, and its magnitude
rebinding the name again.
"""

import torch
from torch import nn


class FrequencyGate(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.dwconv1 = nn.Conv2d(dim, dim, 1, 1, groups=1)
        self.dwconv2 = nn.Conv2d(dim, dim, 1, 1, groups=1)
        self.alpha = nn.Parameter(torch.full((dim, 1, 1), 0.5))
        self.beta = nn.Parameter(torch.ones(dim, 1, 1))

    def forward(self, x):
        x1 = self.dwconv1(x)
        x2 = self.dwconv2(x)
        x2_fft = torch.fft.fft2(x2, norm="backward")
        out = x1 * x2_fft
        out = torch.fft.ifft2(out, dim=(-2, -1), norm="backward")
        out = torch.abs(out)
        return out * self.alpha + x * self.beta


class Bottleneck(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.in_conv = nn.Sequential(nn.Conv2d(dim, dim, 1), nn.GELU())
        self.fac_conv = nn.Conv2d(dim, dim, kernel_size=1, bias=True)
        self.fac_pool = nn.AdaptiveAvgPool2d((1, 1))
        self.gate = FrequencyGate(dim)
        self.out_conv = nn.Conv2d(dim, dim, 1)

    def forward(self, x):
        out = self.in_conv(x)
        x_att = self.fac_conv(self.fac_pool(out))
        x_fft = torch.fft.fft2(out, norm="backward")
        x_fft = x_att * x_fft
        x_fca = torch.fft.ifft2(x_fft, dim=(-2, -1), norm="backward")
        x_fca = torch.abs(x_fca)
        return self.out_conv(torch.relu(x + out + self.gate(x_fca)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return Bottleneck().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 12, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
