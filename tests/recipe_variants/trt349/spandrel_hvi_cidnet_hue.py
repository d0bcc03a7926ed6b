"""HVI-CIDNet's colour transform as spandrel ships it: the hue plane is allocated with the legacy
constructor, ``torch.Tensor(img.shape[0], img.shape[2], img.shape[3]).to(device).to(dtypes)`` (the call
wrapped in parentheses over three lines), then written through masks, one per channel that holds the
pixel's maximum, and reset where the pixel is grey; saturation, value and the density-weighted polar
coordinates of the hue give the HVI image.

Reduced from spandrel 0.4.2 (the PyPI wheel), spandrel/architectures/HVICIDNet/__arch/HVI_transform.py,
``RGB_HVI.HVIT`` (lines 18-59; the allocation at lines 22-24). Written here in our own words as the
module's forward: ``self.this_k = k.item()`` (kept for the inverse transform) is left out. Every pixel of
the hue plane is written where the maximum is a number; where a pixel's maximum is NaN no mask holds and
the original leaves that hue uninitialised (so NaN inputs are compared on where it is defined only).
"""

from math import pi

import torch
import torch.nn as nn


class RGB_HVI(nn.Module):
    def __init__(self):
        super().__init__()
        self.density_k = torch.nn.Parameter(torch.full([1], 0.2))

    def forward(self, img):
        eps = 1e-8
        device = img.device
        dtypes = img.dtype
        hue = (
            torch.Tensor(img.shape[0], img.shape[2], img.shape[3]).to(device).to(dtypes)
        )
        value = img.max(1)[0].to(dtypes)
        img_min = img.min(1)[0].to(dtypes)
        hue[img[:, 2] == value] = (
            4.0
            + ((img[:, 0] - img[:, 1]) / (value - img_min + eps))[img[:, 2] == value]
        )
        hue[img[:, 1] == value] = (
            2.0
            + ((img[:, 2] - img[:, 0]) / (value - img_min + eps))[img[:, 1] == value]
        )
        hue[img[:, 0] == value] = (
            0.0
            + ((img[:, 1] - img[:, 2]) / (value - img_min + eps))[img[:, 0] == value]
        ) % 6

        hue[img.min(1)[0] == value] = 0.0
        hue = hue / 6.0

        saturation = (value - img_min) / (value + eps)
        saturation[value == 0] = 0

        hue = hue.unsqueeze(1)
        saturation = saturation.unsqueeze(1)
        value = value.unsqueeze(1)

        k = self.density_k
        color_sensitive = ((value * 0.5 * pi).sin() + eps).pow(k)
        cx = (2.0 * pi * hue).cos()
        cy = (2.0 * pi * hue).sin()
        X = color_sensitive * saturation * cx
        Y = color_sensitive * saturation * cy
        Z = value
        return torch.cat([X, Y, Z], dim=1)


def build() -> nn.Module:
    return RGB_HVI().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 6, 5, generator=generator),)


DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
