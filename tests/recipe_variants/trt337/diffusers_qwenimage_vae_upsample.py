"""Qwen-Image's VAE in diffusers: the 2-D resample block, an ``nn.Upsample`` subclass in nearest-exact mode.

Reduced from huggingface/diffusers at commit 58eb52c0803ea9af3abec60841c2a093bdf1f951,
src/diffusers/models/autoencoders/autoencoder_kl_qwenimage.py: ``QwenImageUpsample`` (lines 118-130,
``nn.Upsample`` with ``forward`` returning ``super().forward(x.float()).type_as(x)``) and
``QwenImageResample`` in its ``"upsample2d"`` mode (lines 133-160: ``QwenImageUpsample(scale_factor=(2.0,
2.0), mode="nearest-exact")`` then a 3x3 convolution halving the channels; its forward, lines 176-214,
moves the frames into the batch with ``permute``/``reshape`` and back with ``view``/``permute``). The
3-D modes' causal time convolution and feature cache are left out. Written here in our own words, with
a SiLU after the block as the decoder's next residual block begins.
"""

import torch
from torch import nn


class QwenImageUpsample(nn.Upsample):
    def forward(self, x):
        return super().forward(x.float()).type_as(x)


class QwenImageResample(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.resample = nn.Sequential(
            QwenImageUpsample(scale_factor=(2.0, 2.0), mode="nearest-exact"),
            nn.Conv2d(dim, dim // 2, 3, padding=1),
        )

    def forward(self, x):
        b, c, t, h, w = x.size()
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        x = self.resample(x)
        x = x.view(b, t, x.size(1), x.size(2), x.size(3)).permute(0, 2, 1, 3, 4)
        return torch.nn.functional.silu(x)


def build() -> nn.Module:
    torch.manual_seed(0)
    return QwenImageResample(6).eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 1, 5, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "frames", 3: "height", 4: "width"}}
