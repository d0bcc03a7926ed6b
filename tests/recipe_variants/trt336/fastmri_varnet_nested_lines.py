"""The first fastMRI end-to-end VarNet (the research code under models/varnet/): ``forward`` of
the sensitivity model defines a nested function ``get_low_frequency_lines`` that steps ``r`` up
and ``l`` down from the middle while the mask is set (``while mask[..., r, :]: r += 1``), calls it
on the mask, and keeps the centre's columns with ``mask_center`` before the U-Net.

Reduced from facebookresearch/fastMRI at commit 0abc8e24a8dd1a00cddb51abb820cb8c54c2e944,
models/varnet/varnet.py, ``SensitivityModel.forward`` (lines 223-243; the nested function at lines
224-232), and the same commit's fastmri/data/transforms.py, ``mask_center`` (lines 86-100). Written
here in our own words: the inverse FFT and the U-Net are one convolution; the result is divided by
its root sum of squares over the coils as in the original.
"""

import torch
from torch import nn


def mask_center(x, mask_from, mask_to):
    kept = torch.zeros_like(x)
    kept[:, :, :, mask_from:mask_to] = x[:, :, :, mask_from:mask_to]
    return kept


class SensitivityModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm_unet = nn.Conv2d(2, 2, 3, padding=1)

    def chans_to_batch_dim(self, x):
        b, c, *other = x.shape
        return x.contiguous().view(b * c, 1, *other), b

    def forward(self, masked_kspace, mask):
        def get_low_frequency_lines(mask):
            l = r = mask.shape[-2] // 2
            while mask[..., r, :]:
                r += 1

            while mask[..., l, :]:
                l -= 1

            return l + 1, r

        l, r = get_low_frequency_lines(mask)
        num_low_freqs = r - l
        pad = (mask.shape[-2] - num_low_freqs + 1) // 2
        x = mask_center(masked_kspace, pad, pad + num_low_freqs)
        x, b = self.chans_to_batch_dim(x)
        bc, one, h, w, comp = x.shape
        x = self.norm_unet(x.reshape(bc, h, w, comp).permute(0, 3, 1, 2)).permute(0, 2, 3, 1)
        x = x.reshape(b, bc // b, h, w, comp)
        return x / x.pow(2).sum(dim=(1, 4), keepdim=True).sqrt().clamp_min(1e-6)


def build() -> nn.Module:
    return SensitivityModel().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    kspace = torch.randn(2, 3, 4, 15, 2, generator=generator)
    columns = torch.rand(15, generator=generator) < 0.35
    columns[5:10] = True
    columns[4] = columns[10] = False
    return kspace, columns.reshape(1, 1, 15, 1)


DYNAMIC = {"masked_kspace": {0: "batch", 2: "height", 3: "width"}, "mask": {2: "width"}}
