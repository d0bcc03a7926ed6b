"""Pad the image and trimap to a multiple of 32 by writing them into a zero tensor, only when a side is
not one: ViTMatte's ``preprocess_inputs``.

Reduced from hustvl/ViTMatte@8cd7ef068380977c3962c4cb733cb1fe7f2241a5 modeling/meta_arch/vitmatte.py:72-79:
``if images.shape[-1]%32!=0 or images.shape[-2]%32!=0:`` the padded sizes ``(32 - size % 32) + size``
(a side that is a multiple already grows by a whole 32 when the other is not), ``torch.zeros((...)).to(
self.device)``, the input written as ``images[:,:,:,:]`` into the top-left corner, ``del images``, then
the name rebound; the matte is cropped back in ``forward``. Written here in our own words, with a small
network that mixes in a mean over the whole (padded) image, as a ViT's global attention does.
"""

import torch
from torch import nn


class Matte(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.5, 0.4, 0.3]).view(-1, 1, 1), False)
        self.body = nn.Conv2d(4, 1, 3, padding=1)

    @property
    def device(self):
        return self.mean.device

    def forward(self, x):
        images, H, W = self.prepare(x[:, :3], x[:, 3:])
        y = self.body(images)
        y = y + y.mean(dim=(2, 3), keepdim=True)
        return y[:, :, :H, :W]

    def prepare(self, image, trimap):
        images = torch.cat((image - self.mean, trimap), dim=1)
        B, C, H, W = images.shape
        if images.shape[-1] % 32 != 0 or images.shape[-2] % 32 != 0:
            new_H = (32 - images.shape[-2] % 32) + H
            new_W = (32 - images.shape[-1] % 32) + W
            new_images = torch.zeros((images.shape[0], images.shape[1], new_H, new_W)).to(self.device)
            new_images[:, :, :H, :W] = images[:, :, :, :]
            del images
            images = new_images
        return images, H, W


def build() -> nn.Module:
    return Matte()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 4, 64, 96, generator=generator),)


DYNAMIC = {"x": {0: "n", 2: "h", 3: "w"}}
