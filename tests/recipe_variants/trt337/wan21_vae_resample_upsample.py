"""Wan 2.1's video VAE: the decoder's 2-D upsampling step, an ``nn.Upsample`` subclass in nearest-exact mode.

Reduced from Wan-Video/Wan2.1 at commit 9737cba9c1c3c4d04b33fcad41c111989865d315,
wan/modules/vae.py: ``Upsample`` (lines 57-63: a subclass of ``nn.Upsample`` whose forward runs
``super().forward(x.float()).type_as(x)``) and ``Resample`` in its ``'upsample2d'`` mode (lines 66-80:
``nn.Sequential(Upsample(scale_factor=(2., 2.), mode='nearest-exact'), nn.Conv2d(dim, dim // 2, 3,
padding=1))``; its forward, lines 101-141, folds the frames into the batch, resamples and unfolds
them). The original folds with einops' ``rearrange``; here with ``permute`` and ``reshape`` (the same
layout), and the causal-cache branches of the 3-D modes are left out. Written here in our own words.
The TorchScript exporter has no symbolic for ``aten::_upsample_nearest_exact2d``.
"""

import torch
import torch.nn as nn


class Upsample(nn.Upsample):

    def forward(self, x):
        return super().forward(x.float()).type_as(x)


class Resample(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.resample = nn.Sequential(
            Upsample(scale_factor=(2., 2.), mode='nearest-exact'),
            nn.Conv2d(dim, dim // 2, 3, padding=1))

    def forward(self, x):
        b, c, t, h, w = x.size()
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        x = self.resample(x)
        return x.reshape(b, t, x.shape[1], x.shape[2], x.shape[3]).permute(0, 2, 1, 3, 4)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Resample(8).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Two frames of a 6x5 latent with 8 channels.
    return (torch.randn(1, 8, 2, 6, 5, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
