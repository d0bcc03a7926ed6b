"""ViewDiff's multi-view UNet: the skip connections' sizes forwarded to the upsamplers only where a side of the
latents is not a multiple of the upsampling factor, decided with ``any`` over the sides.

Source: facebookresearch/ViewDiff @ 90300c129939891dd8f4177701707a6ef3affb28
viewdiff/model/custom_unet_2d_condition.py, ``UNet2DConditionCrossFrameInExistingAttnModel.forward`` (from line
1275): ``default_overall_up_factor = 2**self.num_upsamplers``, ``forward_upsample_size = False``, ``upsample_size =
None`` and ``if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]): logger.info(...);
forward_upsample_size = True`` (lines 1321-1329); the down blocks' ``res_samples`` gathered into
``down_block_res_samples`` (1532-1537); and the up loop (1573-1604) that slices each block's skip connections with
``len(upsample_block.resnets)`` and, ``if not is_final_block and forward_upsample_size:``, hands the block
``upsample_size = down_block_res_samples[-1].shape[2:]``. The up blocks resize with diffusers' ``Upsample2D``
(nearest by a scale of 2, or to ``output_size`` where one is given). Kept: the decision's form (``any`` over
``sample.shape[-2:]``, a log line in the branch), the slicing of the skip connections and the final-block test.
Reduced: no time, text or cross-frame conditioning and no mid block; each down block is one convolution and a
strided one, each up block two convolutions over a skip connection each and an upsampler but the last. Written here
in our own words (unlike ``diffusers_forward_upsample_size.py``'s loop with ``break``, the test is one ``any``).

Why it matters for export: traced at latents whose sides are multiples of 4, the graph upsamples by 2; at 13 x 19
the upsampled map is one row and column larger than its skip connection and the concatenation fails. Forwarding the
sizes is right at every size (at a multiple it gives what the scale of 2 gives): TRT390 takes the `if` branch while
tracing.
"""

import logging

import torch
import torch.nn.functional as F
from torch import nn

logger = logging.getLogger(__name__)


class Upsample2D(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, hidden_states, output_size=None):
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return self.conv(hidden_states)


class DownBlock2D(nn.Module):
    def __init__(self, channels: int, add_downsample: bool) -> None:
        super().__init__()
        self.resnets = nn.ModuleList([nn.Conv2d(channels, channels, 3, padding=1)])
        self.downsampler = nn.Conv2d(channels, channels, 3, stride=2, padding=1) if add_downsample else None

    def forward(self, hidden_states):
        output_states = ()
        for resnet in self.resnets:
            hidden_states = hidden_states + torch.tanh(resnet(hidden_states))
            output_states = output_states + (hidden_states,)
        if self.downsampler is not None:
            hidden_states = self.downsampler(hidden_states)
            output_states = output_states + (hidden_states,)
        return hidden_states, output_states


class UpBlock2D(nn.Module):
    def __init__(self, channels: int, add_upsample: bool) -> None:
        super().__init__()
        self.resnets = nn.ModuleList([nn.Conv2d(2 * channels, channels, 3, padding=1) for _ in range(2)])
        self.upsampler = Upsample2D(channels) if add_upsample else None

    def forward(self, hidden_states, res_hidden_states_tuple, upsample_size=None):
        for resnet in self.resnets:
            res_hidden_states = res_hidden_states_tuple[-1]
            res_hidden_states_tuple = res_hidden_states_tuple[:-1]
            hidden_states = torch.tanh(resnet(torch.cat([hidden_states, res_hidden_states], dim=1)))
        if self.upsampler is not None:
            hidden_states = self.upsampler(hidden_states, upsample_size)
        return hidden_states


class SmallUNet(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv_in = nn.Conv2d(3, channels, 3, padding=1)
        self.down_blocks = nn.ModuleList([DownBlock2D(channels, i < 2) for i in range(3)])
        self.up_blocks = nn.ModuleList([UpBlock2D(channels, i < 2) for i in range(3)])
        self.num_upsamplers = 2
        self.conv_out = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, sample):
        default_overall_up_factor = 2**self.num_upsamplers

        forward_upsample_size = False
        upsample_size = None

        if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):
            logger.info("Forward upsample size to force interpolation output size.")
            forward_upsample_size = True

        sample = self.conv_in(sample)
        down_block_res_samples = (sample,)
        for downsample_block in self.down_blocks:
            sample, res_samples = downsample_block(sample)
            down_block_res_samples += res_samples

        for i, upsample_block in enumerate(self.up_blocks):
            is_final_block = i == len(self.up_blocks) - 1

            res_samples = down_block_res_samples[-len(upsample_block.resnets) :]
            down_block_res_samples = down_block_res_samples[: -len(upsample_block.resnets)]

            if not is_final_block and forward_upsample_size:
                upsample_size = down_block_res_samples[-1].shape[2:]

            sample = upsample_block(sample, res_samples, upsample_size=upsample_size)

        return self.conv_out(sample)


def build() -> nn.Module:
    torch.manual_seed(0)
    return SmallUNet().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 16, width: int = 20) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator) - 0.5,)


DYNAMIC = {"sample": {0: "batch", 2: "height", 3: "width"}}
CALL = "if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):"
