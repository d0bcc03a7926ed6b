"""LaMa's Fast Fourier Convolution unit: a 1x1 convolution in the frequency domain.

Reduced from advimman/lama at commit 786f5936b27fb3dacd2b1ad799e4de968ea697e7,
saicinpainting/training/modules/ffc.py: ``FourierUnit.__init__`` and ``FourierUnit.forward``
(lines 49-113; no spatial rescaling, no spectral position encoding, no squeeze-excitation: the
defaults). ``forward`` takes ``ffted = torch.fft.rfftn(x, dim=fft_dim, norm=self.fft_norm)``,
rebinds ``ffted`` to ``torch.stack((ffted.real, ffted.imag), dim=-1)``, folds the pair axis into
the channels, applies a 1x1 convolution, batch norm and ReLU, unfolds, rebuilds a complex tensor
with ``torch.complex`` and returns ``torch.fft.irfftn(ffted, s=..., dim=fft_dim,
norm=self.fft_norm)``. Written here in our own words. Form kept: the transform's variable rebound
by the statement that takes both its parts, ``dim=`` and ``norm=`` read from the module, and the
inverse real transform at the end.
"""

import torch
from torch import nn


class FourierUnit(nn.Module):
    def __init__(self, in_channels: int = 4, out_channels: int = 4, groups: int = 1, ffc3d: bool = False,
                 fft_norm: str = "ortho") -> None:
        super().__init__()
        self.conv_layer = nn.Conv2d(in_channels * 2, out_channels * 2, kernel_size=1, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(out_channels * 2)
        self.relu = nn.ReLU(inplace=True)
        self.ffc3d = ffc3d
        self.fft_norm = fft_norm

    def forward(self, x):
        batch = x.shape[0]
        fft_dim = (-3, -2, -1) if self.ffc3d else (-2, -1)
        ffted = torch.fft.rfftn(x, dim=fft_dim, norm=self.fft_norm)
        ffted = torch.stack((ffted.real, ffted.imag), dim=-1)
        ffted = ffted.permute(0, 1, 4, 2, 3).contiguous()
        ffted = ffted.view((batch, -1) + ffted.size()[3:])
        ffted = self.relu(self.bn(self.conv_layer(ffted)))
        ffted = ffted.view((batch, -1, 2) + ffted.size()[2:]).permute(0, 1, 3, 4, 2).contiguous()
        ffted = torch.complex(ffted[..., 0], ffted[..., 1])
        ifft_shape_slice = x.shape[-3:] if self.ffc3d else x.shape[-2:]
        return torch.fft.irfftn(ffted, s=ifft_shape_slice, dim=fft_dim, norm=self.fft_norm)


def build() -> nn.Module:
    return FourierUnit().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 8, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
