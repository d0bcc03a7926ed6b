"""VFIT's decoder: a transposed 3-D convolution kept in a one-element container and called by index.

Reduced from zhshi0816/Video-Frame-Interpolation-Transformer @ 2b1dc91f2da617ce1a7ea924262dc498e52a91cf,
model/VFIT_B.py: ``upSplit`` (lines 29-43) builds ``self.upconv = nn.ModuleList([nn.ConvTranspose3d(
in_channels=in_ch, out_channels=out_ch, kernel_size=(3,3,3), stride=(1,2,2), padding=1), ])``, wraps it as
``self.upconv = nn.Sequential(*self.upconv)`` and calls ``self.upconv[0](x, output_size=output_size)``;
``UNet_3D_3D.forward`` passes the encoder's sizes, ``self.decoder[0](x_4, x_3.size())`` (lines 110-117),
the encoder halving height and width with ``nn.Conv3d(..., kernel_size=(3,3,3), stride=(1,2,2),
padding=1)`` (model/Sep_STS_Encoder.py lines 69-72), and joins each level by concatenation. Written
here in our own words: two levels, a small 3-D convolution for the transformer encoder.
"""

import torch
from torch import nn


class UpSplit(nn.Module):
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.upconv = nn.ModuleList(
            [nn.ConvTranspose3d(in_channels=cin, out_channels=cout, kernel_size=(3, 3, 3), stride=(1, 2, 2),
                                padding=1)]
        )
        self.upconv = nn.Sequential(*self.upconv)

    def forward(self, x, output_size):
        return self.upconv[0](x, output_size=output_size)


class FrameDecoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv3d(3, 4, 3, padding=1)
        self.down0 = nn.Conv3d(4, 6, 3, stride=(1, 2, 2), padding=1)
        self.down1 = nn.Conv3d(6, 8, 3, stride=(1, 2, 2), padding=1)
        self.decoder = nn.Sequential(UpSplit(8, 6), UpSplit(12, 4))
        self.lrelu = nn.LeakyReLU(0.2)
        self.out = nn.Conv3d(8, 3, 3, padding=1)

    def forward(self, frames):
        x_0 = self.stem(frames)
        x_1 = self.down0(x_0)
        x_2 = self.down1(x_1)
        dx_1 = self.lrelu(self.decoder[0](x_2, x_1.size()))
        dx_1 = torch.cat([dx_1, x_1], dim=1)
        dx_0 = self.lrelu(self.decoder[1](dx_1, x_0.size()))
        dx_0 = torch.cat([dx_0, x_0], dim=1)
        return self.out(dx_0).mean(2)


def build() -> nn.Module:
    return FrameDecoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 2, 16, 20, generator=generator),)


DYNAMIC = {"frames": {0: "batch", 3: "height", 4: "width"}}
