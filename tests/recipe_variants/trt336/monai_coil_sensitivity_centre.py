"""MONAI's coil-sensitivity model for the e2e-VarNet: the fully sampled centre of the k-space
mask is found with two loops that step out from the middle column while the mask is set
(``while mask[..., right, :]: right += 1`` and the same down with ``left``, in a method), and
only the centre's columns of the k-space are kept (copied into ``torch.zeros_like`` by a slice
assignment) before the coil images are estimated and normalized by their root sum of squares.

Reduced from MONAI 1.6.1 (the PyPI wheel),
monai/apps/reconstruction/networks/nets/coil_sensitivity_model.py:
``CoilSensitivityModel.get_fully_sampled_region`` (lines 88-113; the loops at lines 107-111) and
``CoilSensitivityModel.forward`` (lines 115-142, the ``use_fully_sampled_region_only`` branch at
lines 126-131). Written here in our own words: the inverse FFT and the complex U-Net are one
convolution over the real and imaginary channels.
"""

import torch
from torch import nn


class CoilSensitivityModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv_net = nn.Conv2d(2, 2, 3, padding=1)
        self.use_fully_sampled_region_only = True

    def get_fully_sampled_region(self, mask):
        left = right = mask.shape[-2] // 2
        while mask[..., right, :]:
            right += 1

        while mask[..., left, :]:
            left -= 1

        return left + 1, right

    def forward(self, masked_kspace, mask):
        if self.use_fully_sampled_region_only:
            left, right = self.get_fully_sampled_region(mask)
            num_low_freqs = right - left
            x = torch.zeros_like(masked_kspace)
            start = (mask.shape[-2] - num_low_freqs + 1) // 2
            x[..., start : start + num_low_freqs, :] = masked_kspace[..., start : start + num_low_freqs, :]
        else:
            x = masked_kspace
        b, c, h, w, two = x.shape
        x = x.permute(0, 1, 4, 2, 3).reshape(b * c, two, h, w)
        x = self.conv_net(x)
        x = x.reshape(b, c, two, h, w).permute(0, 1, 3, 4, 2)
        return x / (x.pow(2).sum(dim=(1, 4), keepdim=True).sqrt() + 1e-6)


def build() -> nn.Module:
    return CoilSensitivityModel().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    kspace = torch.randn(2, 3, 5, 16, 2, generator=generator)
    columns = torch.rand(16, generator=generator) < 0.4
    columns[6:11] = True
    columns[5] = columns[11] = False
    return kspace, columns.reshape(1, 1, 1, 16, 1)


DYNAMIC = {"masked_kspace": {0: "batch", 2: "height", 3: "width"}, "mask": {3: "width"}}
