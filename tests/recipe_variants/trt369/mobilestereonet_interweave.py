"""MobileStereoNet-2D's volume: interwoven feature maps through a 3-D convolution, plane by plane (refused).

Reduced from cogsys-tuebingen/mobilestereonet, commit 3c2931ab87561535469206bc366b942af67a2230,
models/MSNet2D.py, ``MSNet2D.forward`` (lines 143-157): for each ``i`` of ``range(self.volume_size)``
under ``if i > 0:``, ``x = interweave_tensors(featL[:, :, :, i:], featR[:, :, :, :-i])``, unsqueezed,
passed through ``self.conv3d`` (``nn.Conv3d`` with a 3x3 spatial kernel, lines 168-172), squeezed and
``self.volume11``, then ``volume[:, :, i, :, i:] = x``; ``interweave_tensors`` is models/submodule.py:235-241.
The convolution reads the neighbouring columns: at full width it would see the zeros shifted in where
the original sees the slice's edge, so the rule refuses. Written in our own words, smaller channels.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def interweave_tensors(refimg_fea, targetimg_fea):
    B, C, H, W = refimg_fea.shape
    interwoven_features = refimg_fea.new_zeros([B, 2 * C, H, W])
    interwoven_features[:, ::2, :, :] = refimg_fea
    interwoven_features[:, 1::2, :, :] = targetimg_fea
    interwoven_features = interwoven_features.contiguous()
    return interwoven_features


class MSNet2DVolume(nn.Module):
    def __init__(self, volume_size: int = 6) -> None:
        super().__init__()
        self.volume_size, self.num_groups = volume_size, 1
        self.features = nn.Conv2d(3, 4, 3, padding=1)
        self.conv3d = nn.Sequential(nn.Conv3d(1, 2, kernel_size=(8, 3, 3), stride=[8, 1, 1], padding=[0, 1, 1]),
                                    nn.ReLU())
        self.volume11 = nn.Conv2d(2, 1, 1)

    def forward(self, x):
        featL, featR = self.features(x[:, :3]), self.features(x[:, 3:])
        B, C, H, W = featL.shape
        volume = featL.new_zeros([B, self.num_groups, self.volume_size, H, W])
        for i in range(self.volume_size):
            if i > 0:
                x = interweave_tensors(featL[:, :, :, i:], featR[:, :, :, :-i])
                x = torch.unsqueeze(x, 1)
                x = self.conv3d(x)
                x = torch.squeeze(x, 2)
                x = self.volume11(x)
                volume[:, :, i, :, i:] = x
            else:
                x = interweave_tensors(featL, featR)
                x = torch.unsqueeze(x, 1)
                x = self.conv3d(x)
                x = torch.squeeze(x, 2)
                x = self.volume11(x)
                volume[:, :, i, :, :] = x
        return volume.contiguous()


def build() -> nn.Module:
    torch.manual_seed(0)
    return MSNet2DVolume().eval()


def inputs(generator):
    return (torch.rand(1, 6, 4, 9, generator=generator),)
