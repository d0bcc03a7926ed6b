"""fastMRI's sensitivity model for the end-to-end VarNet (as released in late 2020): ``forward``
itself steps two indices out from the middle column of the mask while the column is sampled
(``while mask[..., right, :]: right += 1``, then ``left -= 1``), takes the centre's width and
start, and keeps only those columns of the k-space with ``mask_center`` (a ``zeros_like`` and a
slice assignment on the width axis) before the coil images go through the U-Net.

Reduced from facebookresearch/fastMRI at commit 0abc8e24a8dd1a00cddb51abb820cb8c54c2e944
(2020-10-27), fastmri/models/varnet.py, ``SensitivityModel.forward`` (lines 185-207; the loops at
lines 187-192), and fastmri/data/transforms.py, ``mask_center`` (lines 86-100). Written here in
our own words: the inverse FFT and the normalized U-Net are one convolution over the real and
imaginary channels; the division by the root sum of squares is kept.
"""

import torch
from torch import nn


def mask_center(x, mask_from, mask_to):
    mask = torch.zeros_like(x)
    mask[:, :, :, mask_from:mask_to] = x[:, :, :, mask_from:mask_to]
    return mask


class SensitivityModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm_unet = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, masked_kspace, mask):
        left = right = mask.shape[-2] // 2
        while mask[..., right, :]:
            right += 1

        while mask[..., left, :]:
            left -= 1
        num_low_freqs = right - left
        pad = (mask.shape[-2] - num_low_freqs + 1) // 2

        x = mask_center(masked_kspace, pad, pad + num_low_freqs)
        b, c, h, w, comp = x.shape
        x = self.norm_unet(x.permute(0, 1, 4, 2, 3).reshape(b * c, comp, h, w))
        x = x.reshape(b, c, comp, h, w).permute(0, 1, 3, 4, 2)
        return x / x.pow(2).sum(dim=(1, 4), keepdim=True).sqrt().clamp_min(1e-6)


def build() -> nn.Module:
    return SensitivityModel().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    kspace = torch.randn(1, 4, 6, 20, 2, generator=generator)
    columns = (torch.rand(20, generator=generator) < 0.3).float()
    columns[8:13] = 1.0
    columns[7] = columns[13] = 0.0
    return kspace, columns.reshape(1, 1, 20, 1)


DYNAMIC = {"masked_kspace": {0: "batch", 1: "coils", 2: "height", 3: "width"}, "mask": {2: "width"}}
