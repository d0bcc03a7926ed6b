"""CogVideo's sampler clips a denoised video latent by Imagen's dynamic threshold: per sample and
channel, the ``1 - p`` and ``p`` quantiles over every frame and pixel, taken at once with a 1-D
tensor ``q`` in the method form and unpacked (``l, r = x.quantile(q=torch.tensor([1 - p, p],
device=x.device), dim=-1, keepdim=True)``); where the larger magnitude passes 1, the values are
clamped to it.

Reduced from THUDM/CogVideo at 34dd61430eb49d180befbf747f823cf4e54aa6b5,
sat/sgm/modules/diffusionmodules/sampling_utils.py, ``dynamic_threshold`` lines 21-30 (the quantile at
line 24). Written here in our own words: einops' ``rearrange(x, "n t c h w -> n c (t h w)")`` and its
inverse are a ``permute`` and ``reshape`` (tests do not import einops), the clamp is applied where the
threshold passes 1 without the ``if threshold_mask.any():`` short cut (a data-dependent branch whose
skipped side is the same values), and a 3-D convolution in front makes a denoiser with weights.
"""

import torch
from torch import nn


def dynamic_threshold(x, p=0.95):
    N, T, C, H, W = x.shape
    x = x.permute(0, 2, 1, 3, 4).reshape(N, C, T * H * W)
    l, r = x.quantile(q=torch.tensor([1 - p, p], device=x.device), dim=-1, keepdim=True)
    s = torch.maximum(-l, r)
    threshold_mask = (s > 1).expand(-1, -1, H * W * T)
    x = torch.where(threshold_mask, x.clamp(min=-1 * s, max=s), x)
    return x.reshape(N, C, T, H, W).permute(0, 2, 1, 3, 4)


class ThresholdedDenoiser(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv = nn.Conv3d(channels, channels, 3, padding=1)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        # (n, t, c, h, w) as the sampler holds it; the convolution wants the channels second
        x0 = self.conv(latent.transpose(1, 2)).transpose(1, 2) * 3.0
        return dynamic_threshold(x0)


def build() -> nn.Module:
    return ThresholdedDenoiser()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 4, 6, 5, generator=generator),)


DYNAMIC = {"latent": {0: "batch", 1: "frames", 3: "height", 4: "width"}}
