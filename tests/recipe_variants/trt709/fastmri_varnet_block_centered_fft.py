"""fastMRI's VarNet block: soft data consistency and a refinement in image space, with centered 2-D FFTs
of k-space held as real/imaginary pairs.

Reduced from facebookresearch/fastMRI at commit 91f2df4711adbb6d643df1810f234e4abcf5881b:
fastmri/fftc.py ``fft2c_new`` (lines 14-38), ``ifft2c_new`` (lines 41-65) and the shift helpers
``roll_one_dim``, ``roll``, ``fftshift``, ``ifftshift`` (lines 71-165); fastmri/math.py
``complex_mul`` (lines 12-32) and ``complex_conj`` (from line 35); fastmri/models/varnet.py ``VarNetBlock``
(lines 282-323). k-space and coil sensitivities are real tensors with a last axis of 2 (real,
imaginary). The centered transforms shift the two spatial axes with fastMRI's own roll (two
``narrow`` slices concatenated in the other order), then take
``torch.view_as_real(torch.fft.fftn(torch.view_as_complex(data), dim=(-2, -1), norm=norm))`` (and
``ifftn`` alike), then shift back. The block expands the image by the coil maps into k-space and
reduces k-space to one image with the conjugate maps. Written here in our own words; the U-Net
regulariser is one 3x3 convolution over the real/imaginary channels here, and the sampling mask
is passed as 0/1 floats (compared with 0.5) where fastMRI passes a bool tensor. Form kept: the pair
tensor made complex with ``torch.view_as_complex`` inside the transform's call and made real again
with ``torch.view_as_real`` around it, ``dim=`` and ``norm=`` passed by keyword.
"""

from typing import List, Optional

import torch
from torch import nn


def roll_one_dim(x: torch.Tensor, shift: int, dim: int) -> torch.Tensor:
    shift = shift % x.size(dim)
    if shift == 0:
        return x
    left = x.narrow(dim, 0, x.size(dim) - shift)
    right = x.narrow(dim, x.size(dim) - shift, shift)
    return torch.cat((right, left), dim=dim)


def roll(x: torch.Tensor, shift: List[int], dim: List[int]) -> torch.Tensor:
    for amount, axis in zip(shift, dim):
        x = roll_one_dim(x, amount, axis)
    return x


def fftshift(x: torch.Tensor, dim: Optional[List[int]] = None) -> torch.Tensor:
    dim = list(range(x.dim())) if dim is None else dim
    return roll(x, [x.shape[d] // 2 for d in dim], dim)


def ifftshift(x: torch.Tensor, dim: Optional[List[int]] = None) -> torch.Tensor:
    dim = list(range(x.dim())) if dim is None else dim
    return roll(x, [(x.shape[d] + 1) // 2 for d in dim], dim)


def fft2c(data: torch.Tensor, norm: str = "ortho") -> torch.Tensor:
    if not data.shape[-1] == 2:
        raise ValueError("Tensor does not have separate complex dim.")
    data = ifftshift(data, dim=[-3, -2])
    data = torch.view_as_real(torch.fft.fftn(torch.view_as_complex(data), dim=(-2, -1), norm=norm))
    return fftshift(data, dim=[-3, -2])


def ifft2c(data: torch.Tensor, norm: str = "ortho") -> torch.Tensor:
    if not data.shape[-1] == 2:
        raise ValueError("Tensor does not have separate complex dim.")
    data = ifftshift(data, dim=[-3, -2])
    data = torch.view_as_real(torch.fft.ifftn(torch.view_as_complex(data), dim=(-2, -1), norm=norm))
    return fftshift(data, dim=[-3, -2])


def complex_mul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    re = x[..., 0] * y[..., 0] - x[..., 1] * y[..., 1]
    im = x[..., 0] * y[..., 1] + x[..., 1] * y[..., 0]
    return torch.stack((re, im), dim=-1)


def complex_conj(x: torch.Tensor) -> torch.Tensor:
    return torch.stack((x[..., 0], -x[..., 1]), dim=-1)


class Regulariser(nn.Module):
    """The U-Net's place: real and imaginary parts as two channels, one convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x):
        b, c, h, w, two = x.shape
        y = self.conv(x.permute(0, 4, 1, 2, 3).reshape(b, two * c, h, w))
        return y.reshape(b, two, c, h, w).permute(0, 2, 3, 4, 1)


class VarNetBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.model = Regulariser()
        self.dc_weight = nn.Parameter(torch.ones(1))

    def sens_expand(self, x, sens_maps):
        return fft2c(complex_mul(x, sens_maps))

    def sens_reduce(self, x, sens_maps):
        return complex_mul(ifft2c(x), complex_conj(sens_maps)).sum(dim=1, keepdim=True)

    def forward(self, current_kspace, ref_kspace, mask, sens_maps):
        zero = torch.zeros(1, 1, 1, 1, 1).to(current_kspace)
        soft_dc = torch.where(mask > 0.5, current_kspace - ref_kspace, zero) * self.dc_weight
        model_term = self.sens_expand(self.model(self.sens_reduce(current_kspace, sens_maps)), sens_maps)
        return current_kspace - soft_dc - model_term


def build() -> nn.Module:
    return VarNetBlock().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    kspace = torch.randn(2, 3, 8, 6, 2, generator=generator)
    ref = torch.randn(2, 3, 8, 6, 2, generator=generator)
    mask = (torch.rand(2, 1, 1, 6, 1, generator=generator) > 0.5).float()
    sens = torch.randn(2, 3, 8, 6, 2, generator=generator)
    return kspace, ref, mask, sens


DYNAMIC = {"current_kspace": {0: "batch", 2: "height", 3: "width"},
           "ref_kspace": {0: "batch", 2: "height", 3: "width"},
           "mask": {0: "batch", 3: "width"},
           "sens_maps": {0: "batch", 2: "height", 3: "width"}}
