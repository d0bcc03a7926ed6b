"""DarkIR's frequency MLP: the amplitude of a spectrum filtered, its phase kept.

Reduced from cidautai/DarkIR at commit 0910291157ad04f210481a002cf6bb480f6a7f18,
archs/arch_model.py: ``FreMLP.__init__`` and ``FreMLP.forward`` (lines 36-55, the transform at 47: ``x_freq =
torch.fft.rfft2(x, norm='backward')``, ``mag = torch.abs(x_freq)``, ``pha = torch.angle(x_freq)``,
``mag = self.process1(mag)``, ``real = mag * torch.cos(pha)``, ``imag = mag * torch.sin(pha)``,
``x_out = torch.complex(real, imag)``, ``x_out = torch.fft.irfft2(x_out, s=(H, W),
norm='backward')``). Written here in our own words. Form kept: the half spectrum kept in a
variable read by ``torch.abs`` and ``torch.angle``, the complex rebuilt from real parts and its
inverse real transform at the input's size.
"""

import torch
from torch import nn


class FrequencyMLP(nn.Module):
    def __init__(self, nc: int = 3, expand: int = 2) -> None:
        super().__init__()
        self.process1 = nn.Sequential(
            nn.Conv2d(nc, expand * nc, 1, 1, 0),
            nn.LeakyReLU(0.1, inplace=True),
            nn.Conv2d(expand * nc, nc, 1, 1, 0))

    def forward(self, x):
        _, _, H, W = x.shape
        x_freq = torch.fft.rfft2(x, norm="backward")
        mag = torch.abs(x_freq)
        pha = torch.angle(x_freq)
        mag = self.process1(mag)
        real = mag * torch.cos(pha)
        imag = mag * torch.sin(pha)
        x_out = torch.complex(real, imag)
        x_out = torch.fft.irfft2(x_out, s=(H, W), norm="backward")
        return x_out


def build() -> nn.Module:
    torch.manual_seed(0)
    return FrequencyMLP().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 10, 9, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
