"""AnimateDiff's video UNet: the skip connections' sizes (frames, height, width) forwarded to the 3-D upsamplers only
where a side of the latents is not a multiple of the upsampling factor.

Source: guoyww/AnimateDiff @ e92bd5671ba62c0d774a32951453e328018b7c5b animatediff/models/unet.py,
``UNet3DConditionModel.forward`` (from line 320): ``default_overall_up_factor = 2**self.num_upsamplers``,
``forward_upsample_size = False``, ``upsample_size = None``, ``if any(s % default_overall_up_factor != 0 for s in
sample.shape[-2:]):`` setting the flag (lines 351-359), and the up loop (440-460) that hands each block but the last
``upsample_size = down_block_res_samples[-1].shape[2:]``, three sizes of a ``(batch, channels, frames, height,
width)`` map; animatediff/models/resnet.py: ``InflatedConv3d`` (lines 10-18: the frames folded into the batch for a
2-D convolution and back) and ``Upsample3D.forward`` (47-80: ``F.interpolate(..., scale_factor=[1.0, 2.0, 2.0],
mode="nearest")``, or ``size=output_size`` where one is given). Kept: the decision over the last two sides of 5-D
latents, the three-size ``output_size`` and the frame-preserving scale, the frames folded into the batch. Reduced: no
time or text conditioning, no motion modules, no mid block; ``einops.rearrange`` written as ``permute``/``reshape``;
each down block is one inflated convolution and a strided one, each up block two inflated convolutions over a skip
connection each and an upsampler but the last. Written here in our own words.

Why it matters for export: traced at latents whose sides are multiples of 4, the graph upsamples by 2; at 13 x 19
the upsampled map is larger than its skip connection and the concatenation fails. Forwarding the sizes is right at
every size: TRT390 takes the `if` branch while tracing.
"""

import torch
import torch.nn.functional as F
from torch import nn


class InflatedConv3d(nn.Conv2d):
    def forward(self, x):
        video_length = x.shape[2]
        b, c, f, h, w = x.shape
        x = x.permute(0, 2, 1, 3, 4).reshape(b * f, c, h, w)
        x = super().forward(x)
        return x.reshape(b, video_length, x.shape[1], x.shape[2], x.shape[3]).permute(0, 2, 1, 3, 4)


class Upsample3D(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = InflatedConv3d(channels, channels, 3, padding=1)

    def forward(self, hidden_states, output_size=None):
        if output_size is None:
            hidden_states = F.interpolate(hidden_states, scale_factor=[1.0, 2.0, 2.0], mode="nearest")
        else:
            hidden_states = F.interpolate(hidden_states, size=output_size, mode="nearest")
        return self.conv(hidden_states)


class DownBlock3D(nn.Module):
    def __init__(self, channels: int, add_downsample: bool) -> None:
        super().__init__()
        self.resnets = nn.ModuleList([InflatedConv3d(channels, channels, 3, padding=1)])
        self.downsampler = InflatedConv3d(channels, channels, 3, stride=2, padding=1) if add_downsample else None

    def forward(self, hidden_states):
        output_states = ()
        for resnet in self.resnets:
            hidden_states = hidden_states + torch.tanh(resnet(hidden_states))
            output_states += (hidden_states,)
        if self.downsampler is not None:
            hidden_states = self.downsampler(hidden_states)
            output_states += (hidden_states,)
        return hidden_states, output_states


class UpBlock3D(nn.Module):
    def __init__(self, channels: int, add_upsample: bool) -> None:
        super().__init__()
        self.resnets = nn.ModuleList([InflatedConv3d(2 * channels, channels, 3, padding=1) for _ in range(2)])
        self.upsampler = Upsample3D(channels) if add_upsample else None

    def forward(self, hidden_states, res_hidden_states_tuple, upsample_size=None):
        for resnet in self.resnets:
            res_hidden_states = res_hidden_states_tuple[-1]
            res_hidden_states_tuple = res_hidden_states_tuple[:-1]
            hidden_states = torch.tanh(resnet(torch.cat([hidden_states, res_hidden_states], dim=1)))
        if self.upsampler is not None:
            hidden_states = self.upsampler(hidden_states, upsample_size)
        return hidden_states


class UNet3DConditionModel(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv_in = InflatedConv3d(3, channels, 3, padding=1)
        self.down_blocks = nn.ModuleList([DownBlock3D(channels, i < 2) for i in range(3)])
        self.up_blocks = nn.ModuleList([UpBlock3D(channels, i < 2) for i in range(3)])
        self.num_upsamplers = 2
        self.conv_out = InflatedConv3d(channels, 3, 3, padding=1)

    def forward(self, sample):
        default_overall_up_factor = 2**self.num_upsamplers

        forward_upsample_size = False
        upsample_size = None

        if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):
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
    return UNet3DConditionModel().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 16, width: int = 20) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, 2, height, width, generator=generator) - 0.5,)


DYNAMIC = {"sample": {0: "batch", 3: "height", 4: "width"}}
CALL = "if any(s % default_overall_up_factor != 0 for s in sample.shape[-2:]):"
