"""Pad two inputs to a multiple of 32 in one branch, each written into its own zero tensor, only when a
side is not one: DiffMatte's diffusion preprocessing.

Reduced from YihanHu-2022/DiffMatte@12082fdbad2ccc319e411ac4a4f3d208780f2961 modeling/meta_arch/difmodel.py:109-123
(another author's take on ViTMatte's pad): the image with its trimap and the diffusion input (condition
and noisy matte) padded to the same sizes ``(32 - size % 32) + size`` when a side of the image is not a
multiple of 32, both written as ``x[:,:,:,:]`` into the top-left corner of ``torch.zeros((...)).to(
self.device)``, both deleted, then both names rebound. Written here in our own words (our names, both
tensors filled before either is written); the two branches' outputs meet in a mean over the whole
padded image.
"""

import torch
from torch import nn


class Diffusion(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("anchor", torch.zeros(1), False)
        self.backbone = nn.Conv2d(4, 2, 3, padding=1)
        self.decoder = nn.Conv2d(4, 2, 3, padding=1)

    @property
    def device(self):
        return self.anchor.device

    def forward(self, x):
        images, dimages, H, W = self.prepare(x[:, :4], x[:, 4:])
        features = self.backbone(images)
        y = self.decoder(torch.cat([dimages, features], 1))
        y = y - features.mean(dim=(2, 3), keepdim=True)
        return y[:, :, :H, :W]

    def prepare(self, images, dimages):
        B, C, H, W = images.shape
        if images.shape[-1] % 32 != 0 or images.shape[-2] % 32 != 0:
            tall = (32 - images.shape[-2] % 32) + H
            wide = (32 - images.shape[-1] % 32) + W
            padded = torch.zeros((images.shape[0], images.shape[1], tall, wide)).to(self.device)
            dpadded = torch.zeros((dimages.shape[0], dimages.shape[1], tall, wide)).to(self.device)

            padded[:, :, :H, :W] = images[:, :, :, :]
            dpadded[:, :, :H, :W] = dimages[:, :, :, :]

            del images
            del dimages

            images = padded
            dimages = dpadded
        return images, dimages, H, W


def build() -> nn.Module:
    return Diffusion()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 6, 40, 50, generator=generator),)


DYNAMIC = {"x": {0: "n", 2: "h", 3: "w"}}
