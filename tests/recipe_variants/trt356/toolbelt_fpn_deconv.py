"""pytorch-toolbelt's FPN decoder with deconvolution upsampling: each coarser map is upsampled to the finer
map's spatial size and added to it.

Reduced from BloodAxe/pytorch-toolbelt @ 05e07ac7f0a240061a334d5dd6598ea9ae7c3264:
pytorch_toolbelt/modules/upsample.py, ``DeconvolutionUpsample2d`` (lines 197-207) builds ``self.conv =
nn.ConvTranspose2d(in_channels, in_channels, kernel_size=3, padding=1, stride=2)`` and its forward hands
the size it is given on, ``self.conv(x, output_size=output_size)``; ``instantiate_upsample_block`` makes it
for ``UpsampleLayerType.DECONVOLUTION`` (line 242). pytorch_toolbelt/modules/decoders/fpn.py,
``FPNDecoder.forward`` (lines 72-87) walks ``zip(remaining_feature_maps, self.upsamples, self.outputs)``,
calls ``upsample(outputs[-1], output_size=feature_map.shape[-2:])`` (only the spatial sizes) and adds it
to the lateral map: ``output_block(feature_map + upsampled)``. Here a stack of stride-2 convolutions
stands in for the encoder (odd sizes round up, as a ResNet's do); written in our own words.
"""

import torch
from torch import nn


class DeconvUpsample(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.out_channels = channels
        self.conv = nn.ConvTranspose2d(channels, channels, kernel_size=3, padding=1, stride=2)

    def forward(self, x, output_size=None):
        return self.conv(x, output_size=output_size)


class TinyFPN(nn.Module):
    def __init__(self, width: int = 6) -> None:
        super().__init__()
        channels = (4, 8, 12)
        self.stages = nn.ModuleList()
        cin = 3
        for cout in channels:
            self.stages.append(nn.Conv2d(cin, cout, 3, stride=2, padding=1))
            cin = cout
        self.lateral = nn.ModuleList([nn.Conv2d(c, width, 1) for c in channels])
        self.upsamples = nn.ModuleList([DeconvUpsample(width) for _ in channels[:-1]])
        self.outputs = nn.ModuleList([nn.Conv2d(width, width, 3, padding=1) for _ in channels[:-1]])

    def forward(self, image):
        feature_maps = []
        x = image
        for stage in self.stages:
            x = torch.relu(stage(x))
            feature_maps.append(x)
        lateral_maps = [lateral(fm) for fm, lateral in zip(feature_maps, self.lateral)]
        outputs = [lateral_maps[-1]]
        for feature_map, upsample, output_block in zip(lateral_maps[:-1][::-1], self.upsamples, self.outputs):
            upsampled = upsample(outputs[-1], output_size=feature_map.shape[-2:])
            outputs.append(output_block(feature_map + upsampled))
        return outputs[-1]


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyFPN().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 32, 48, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
