"""GwcNet's two cost volumes: group-wise correlation and concatenation, one disparity plane at a time.

Reduced from xy-guo/GwcNet, commit 0987074f48b098c6e975a58ca5aacf233b0fb0eb, models/submodule.py:
``build_concat_volume`` (lines 30-41) writes the reference features into the first ``C`` channels of
plane ``i`` from column ``i`` on and the target's columns up to ``-i`` into the others;
``groupwise_correlation`` (44-50) averages the product of the two maps within each channel group
through a ``view`` to ``[B, num_groups, C // num_groups, H, W]``; ``build_gwc_volume`` (53-63) writes it
for every disparity under ``if i > 0:``. Written here in our own words, the form kept (sizes read
from ``.shape``, a list to ``view`` and ``new_zeros``); a 3x3 convolution stands for the feature net.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def build_concat_volume(refimg_fea, targetimg_fea, maxdisp: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, 2 * C, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :C, i, :, i:] = refimg_fea[:, :, :, i:]
            volume[:, C:, i, :, i:] = targetimg_fea[:, :, :, :-i]
        else:
            volume[:, :C, i, :, :] = refimg_fea
            volume[:, C:, i, :, :] = targetimg_fea
    volume = volume.contiguous()
    return volume


def groupwise_correlation(fea1, fea2, num_groups: int):
    B, C, H, W = fea1.shape
    channels_per_group = C // num_groups
    cost = (fea1 * fea2).view([B, num_groups, channels_per_group, H, W]).mean(dim=2)
    return cost


def build_gwc_volume(refimg_fea, targetimg_fea, maxdisp: int, num_groups: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, num_groups, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :, i, :, i:] = groupwise_correlation(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i],
                                                           num_groups)
        else:
            volume[:, :, i, :, :] = groupwise_correlation(refimg_fea, targetimg_fea, num_groups)
    volume = volume.contiguous()
    return volume


class GwcVolumes(nn.Module):
    def __init__(self, maxdisp: int = 10, groups: int = 4) -> None:
        super().__init__()
        self.maxdisp, self.groups = maxdisp, groups
        self.features = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        left, right = self.features(x[:, :3]), self.features(x[:, 3:])
        gwc = build_gwc_volume(left, right, self.maxdisp, self.groups)
        concat = build_concat_volume(left, right, self.maxdisp)
        return torch.cat((gwc, concat), dim=1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return GwcVolumes().eval()


def inputs(generator):
    return (torch.rand(1, 6, 5, 7, generator=generator),)
