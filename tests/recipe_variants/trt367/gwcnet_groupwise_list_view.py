"""GwcNet's group-wise correlation volume, its target shape given as one list.

Reduced from xy-guo/GwcNet (commit 0987074f48b098c6e975a58ca5aacf233b0fb0eb), models/submodule.py:
``groupwise_correlation`` (lines 44-50) reads ``B, C, H, W = fea1.shape`` and views the product of the two
feature maps as ``[B, num_groups, channels_per_group, H, W]``, one list argument, before averaging each
group; ``build_gwc_volume`` (lines 53-63) fills a zero volume with it for every disparity ``i`` below
``maxdisp``, on ``refimg_fea[:, :, :, i:]`` against ``targetimg_fea[:, :, :, :-i]``. Kept: the list form
of the view and the shifted slices. Reduced: an 8-channel feature layer, 4 groups and 12 disparities
(GwcNet's 48 quarter-resolution disparities shrunk with the map), its asserts on the shapes left out. Where
the disparity passes the map's width the slices are empty, ``W`` is 0 and the exported ``Reshape`` reads
that 0 as "copy the input's size". Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def groupwise_correlation(fea1, fea2, num_groups: int):
    B, C, H, W = fea1.shape
    channels_per_group = C // num_groups
    return (fea1 * fea2).view([B, num_groups, channels_per_group, H, W]).mean(dim=2)


def build_gwc_volume(refimg_fea, targetimg_fea, maxdisp: int, num_groups: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, num_groups, maxdisp, H, W])
    for i in range(maxdisp):
        if i == 0:
            volume[:, :, i, :, :] = groupwise_correlation(refimg_fea, targetimg_fea, num_groups)
        else:
            volume[:, :, i, :, i:] = groupwise_correlation(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i],
                                                           num_groups)
    return volume.contiguous()


class GwcVolume(nn.Module):
    def __init__(self, maxdisp: int = 12, groups: int = 4) -> None:
        super().__init__()
        self.maxdisp, self.groups = maxdisp, groups
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())

    def forward(self, x):
        return build_gwc_volume(self.features(x[:, :3]), self.features(x[:, 3:]), self.maxdisp, self.groups)


def build() -> nn.Module:
    torch.manual_seed(0)
    return GwcVolume().eval()


def inputs(generator):
    return (torch.rand(1, 6, 5, 8, generator=generator),)
