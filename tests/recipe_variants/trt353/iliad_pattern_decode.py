"""A seamless-pattern decode: latents decoded as they are and rolled by half, the seams taken from the rolled one.

Reduced from iliad-ai/iliad-comfy at 26ae650ffd07043613e806fdc7ae98d4231280d5, set_pattern_vae.py:
``SetPatternVAE.apply``'s ``new_decode`` (lines 27-51) unpacks ``bs, c, h, w = samples_in.shape``,
decodes the latents and the latents rolled by half their height and width (``torch.roll(samples_in,
shifts=(h // 2, w // 2), dims=(2, 3))``, line 32), unpacks the decoded images' sizes (``dbs, dh, dw, dc
= d0.shape``, channels last) and rolls the second back with ``shifts=(-dh // 2, -dw // 2), dims=(1,
2)`` (line 37: the negation floored, ``(-dh) // 2``); a mask of ones zeroed along the four borders
blends the two, so that the borders come from the decode whose seams lay in the middle. Here a small
convolutional decoder stands in for the VAE's (upsampling twice, images returned channels last) and
the border is 2 pixels deep, not 16. Written here in our own words.
"""

import torch
from torch import nn


class PatternDecode(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.decoder = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.SiLU(), nn.Upsample(scale_factor=2.0),
                                     nn.Conv2d(8, 3, 3, padding=1))

    def decode(self, latent):
        return self.decoder(latent).permute(0, 2, 3, 1)

    def forward(self, samples_in):
        bs, c, h, w = samples_in.shape
        d0 = self.decode(samples_in)
        d1 = self.decode(torch.roll(samples_in, shifts=(h // 2, w // 2), dims=(2, 3)))
        dbs, dh, dw, dc = d0.shape
        d1 = torch.roll(d1, shifts=(-dh // 2, -dw // 2), dims=(1, 2))
        mask = torch.ones(dbs, dh, dw, 1, device=samples_in.device)
        mask[:, :2, :, :] = 0
        mask[:, -2:, :, :] = 0
        mask[:, :, :2, :] = 0
        mask[:, :, -2:, :] = 0
        return mask * d0 + (1 - mask) * d1


def build() -> nn.Module:
    return PatternDecode().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 6, 10, generator=generator),)


DYNAMIC = {"samples_in": {0: "batch", 2: "height", 3: "width"}}
