"""IGEV++'s group-wise correlation volume: one correlation per disparity, over the shifted columns.

Reduced from stereo_matching 0.2.0 (PyPI), stereo_matching/models/igev_plusplus/modeling_igev_plusplus.py:
``_igevpp_groupwise_correlation`` (lines 198-206) reads ``batch, channels, height, width = fea1.shape``
and views the product of the two feature maps as ``(batch, num_groups, channels // num_groups, height,
width)`` before averaging each group; ``_igevpp_build_gwc_volume`` (lines 209-226) fills a zero volume
with that correlation for every disparity ``idx`` below ``maxdisp``, on ``refimg_fea[:, :, :, idx:]``
against ``targetimg_fea[:, :, :, :-idx]``. With a disparity range wider than the feature map (the zoo
model's 48 quarter-resolution disparities on a 16-column map) the slices are empty, ``width`` is 0, and
the exported ``Reshape`` reads that 0 as "copy the input's size". Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def groupwise_correlation(fea1, fea2, num_groups: int):
    batch, channels, height, width = fea1.shape
    per_group = channels // num_groups
    cost = (fea1 * fea2).view(batch, num_groups, per_group, height, width).mean(dim=2)
    return cost


def build_gwc_volume(refimg_fea, targetimg_fea, maxdisp: int, num_groups: int):
    batch, _, height, width = refimg_fea.shape
    volume = refimg_fea.new_zeros(batch, num_groups, maxdisp, height, width)
    for idx in range(maxdisp):
        if idx > 0:
            volume[:, :, idx, :, idx:] = groupwise_correlation(refimg_fea[:, :, :, idx:],
                                                               targetimg_fea[:, :, :, :-idx], num_groups)
        else:
            volume[:, :, idx, :, :] = groupwise_correlation(refimg_fea, targetimg_fea, num_groups)
    return volume.contiguous()


class GwcVolume(nn.Module):
    def __init__(self, maxdisp: int = 12, groups: int = 4) -> None:
        super().__init__()
        self.maxdisp, self.groups = maxdisp, groups
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())

    def forward(self, x):
        left = self.features(x[:, :3])
        right = self.features(x[:, 3:])
        return build_gwc_volume(left, right, self.maxdisp, self.groups)


def build() -> nn.Module:
    torch.manual_seed(0)
    return GwcVolume().eval()


def inputs(generator):
    return (torch.rand(1, 6, 6, 8, generator=generator),)
