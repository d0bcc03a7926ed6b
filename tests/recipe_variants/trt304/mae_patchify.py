"""MAE's patch split and its inverse, 6-D einsum permutations around a per-patch op: facebookresearch/mae.

Reduced from facebookresearch/mae at efb2a8062c206524e35e47d04501ed4f544c0ae8, models_mae.py,
``MaskedAutoencoderViT.patchify`` (lines 95-107: ``x = torch.einsum('nchpwq->nhwpqc', x)`` on line
105, after ``x = imgs.reshape(shape=(...))``) and ``unpatchify`` (lines 109-121:
``x = torch.einsum('nhwpqc->nchpwq', x)`` on line 119). Written here in our own words: between
the two, each patch is normalised by its own mean and variance (the original's ``norm_pix_loss``
target); the unpatchify's grid comes from the image's size, not from the square root of the token
count (that would be a number baked into the export, another rule's matter).
"""

import torch
from torch import nn


class PatchNormalise(nn.Module):
    def __init__(self, patch: int = 2, channels: int = 3) -> None:
        super().__init__()
        self.patch, self.channels = patch, channels

    def patchify(self, imgs):
        p = self.patch
        h, w = imgs.shape[2] // p, imgs.shape[3] // p
        x = imgs.reshape(shape=(imgs.shape[0], self.channels, h, p, w, p))
        x = torch.einsum('nchpwq->nhwpqc', x)
        return x.reshape(shape=(imgs.shape[0], h * w, p**2 * self.channels))

    def unpatchify(self, x, h, w):
        p = self.patch
        x = x.reshape(shape=(x.shape[0], h, w, p, p, self.channels))
        x = torch.einsum('nhwpqc->nchpwq', x)
        return x.reshape(shape=(x.shape[0], self.channels, h * p, w * p))

    def forward(self, imgs):
        patches = self.patchify(imgs)
        mean = patches.mean(dim=-1, keepdim=True)
        var = patches.var(dim=-1, keepdim=True)
        patches = (patches - mean) / (var + 1.0e-6) ** 0.5
        return self.unpatchify(patches, imgs.shape[2] // self.patch, imgs.shape[3] // self.patch)


def build() -> nn.Module:
    return PatchNormalise()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 4, 6, generator=generator),)


DYNAMIC = {"imgs": {0: "batch", 2: "height", 3: "width"}}
