"""diffusers' conditional UNet: the skip connections' sizes forwarded to the upsamplers only for odd latent sizes.

Reduced from huggingface/diffusers at tag v0.42.1, src/diffusers/models/unets/unet_2d_condition.py
(``UNet2DConditionModel.forward``: ``default_overall_up_factor = 2**self.num_upsamplers``, the loop over
``sample.shape[-2:]`` that sets ``forward_upsample_size`` where a side is not a multiple of it, and the up blocks
handed ``upsample_size = res_samples[-1].shape[2:]`` only then) and src/diffusers/models/upsampling.py
(``Upsample2D.forward``: nearest interpolation by a scale of 2, or to ``output_size`` when one is given). Written here
in our own words: two down and two up stages of one convolution each, no time or text conditioning. The same lines
at a pinned commit: huggingface/diffusers @ 58eb52c0803ea9af3abec60841c2a093bdf1f951
src/diffusers/models/unets/unet_2d_condition.py:1043-1053 (the decision) and 1204-1205 (the sizes forwarded),
src/diffusers/models/upsampling.py:140-176 (``Upsample2D.forward``).

Traced at latents whose sides are multiples of 4, the graph upsamples by 2; at 9 x 9 the upsampled map is 10 x 10
against a skip connection of 9 x 9, and the concatenation fails. Forwarding the sizes is right at every size.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Upsample(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, hidden_states, output_size=None):
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return self.conv(hidden_states)


class SmallUNet(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv_in = nn.Conv2d(3, channels, 3, padding=1)
        self.down = nn.ModuleList([nn.Conv2d(channels, channels, 3, stride=2, padding=1) for _ in range(2)])
        self.up = nn.ModuleList([Upsample(channels) for _ in range(2)])
        self.merge = nn.ModuleList([nn.Conv2d(2 * channels, channels, 3, padding=1) for _ in range(2)])
        self.num_upsamplers = 2

    def forward(self, sample):
        default_overall_up_factor = 2 ** self.num_upsamplers
        forward_upsample_size = False
        upsample_size = None
        for dim in sample.shape[-2:]:
            if dim % default_overall_up_factor != 0:
                forward_upsample_size = True
                break
        hidden = self.conv_in(sample)
        skips = [hidden]
        for down in self.down:
            hidden = down(hidden)
            skips.append(hidden)
        skips.pop()
        for up, merge in zip(self.up, self.merge):
            skip = skips.pop()
            if forward_upsample_size:
                upsample_size = skip.shape[2:]
            hidden = merge(torch.cat([up(hidden, upsample_size), skip], 1))
        return hidden


def build() -> nn.Module:
    torch.manual_seed(0)
    return SmallUNet().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 16, 20, generator=generator),)


DYNAMIC = {"sample": {0: "batch", 2: "height", 3: "width"}}
