"""MONAI's coil-sensitivity model on 3-D k-space (``spatial_dims=3``): the same centre search as
for 2-D data (``while mask[..., right, :]: right += 1`` and ``left -= 1`` from the middle, in a
method), here on a mask of shape (1, 1, 1, 1, D, 1) whose scanned axis is the last spatial one,
and the slice assignment ``x[..., start : start + n, :]`` keeps the centre planes of a 6-D
k-space (B, C, H, W, D, 2).

Reduced from MONAI 1.6.1 (the PyPI wheel),
monai/apps/reconstruction/networks/nets/coil_sensitivity_model.py:
``CoilSensitivityModel.get_fully_sampled_region`` (lines 88-113) and ``forward`` (lines 115-142),
on the 3-D shapes its docstring gives (line 120: mask (1,1,1,1,D,1)). Written here in our own
words: the inverse FFT and the complex U-Net are one 3-D convolution over the real and imaginary
channels.
"""

import torch
from torch import nn


class CoilSensitivityModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv_net = nn.Conv3d(2, 2, 3, padding=1)

    def get_fully_sampled_region(self, mask):
        left = right = mask.shape[-2] // 2
        while mask[..., right, :]:
            right += 1

        while mask[..., left, :]:
            left -= 1

        return left + 1, right

    def forward(self, masked_kspace, mask):
        left, right = self.get_fully_sampled_region(mask)
        num_low_freqs = right - left
        x = torch.zeros_like(masked_kspace)
        start = (mask.shape[-2] - num_low_freqs + 1) // 2
        x[..., start : start + num_low_freqs, :] = masked_kspace[..., start : start + num_low_freqs, :]
        b, c, h, w, d, two = x.shape
        x = self.conv_net(x.permute(0, 1, 5, 2, 3, 4).reshape(b * c, two, h, w, d))
        x = x.reshape(b, c, two, h, w, d).permute(0, 1, 3, 4, 5, 2)
        return x / (x.pow(2).sum(dim=(1, 5), keepdim=True).sqrt() + 1e-6)


def build() -> nn.Module:
    return CoilSensitivityModel().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    kspace = torch.randn(1, 2, 4, 3, 12, 2, generator=generator)
    planes = (torch.rand(12, generator=generator) < 0.5).to(torch.uint8)
    planes[5:8] = 1
    planes[4] = planes[8] = 0
    return kspace, planes.reshape(1, 1, 1, 1, 12, 1)


DYNAMIC = {"masked_kspace": {0: "batch", 2: "height", 3: "width", 4: "depth"}, "mask": {4: "depth"}}
