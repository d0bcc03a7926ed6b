"""Fast-ACVNet's normalized correlation volumes and its concatenation volume with a whole reference plane.

Reduced from gangweiX/Fast-ACVNet, commit 61d5375e1816f124f4417cea506eeaddac1504e4, models/submodule.py:
``build_concat_volume`` (lines 90-101) writes the whole reference map into every plane
(``volume[:, :C, i, :, :] = refimg_fea[:, :, :, :]``) and only the target's columns up to ``-i`` from
column ``i`` on; ``groupwise_correlation_norm`` (124-132) views both maps per group and divides each by
its norm over the group's channels (``torch.norm(fea1, 2, 2, True) + 1e-05``); ``build_gwc_volume_norm``
(135-145) and ``build_norm_correlation_volume`` (152-161, ``norm_correlation`` at 148-150: ``torch.norm(fea1,
2, 1, True)``, a mean over channels) fill the volumes plane by plane. Written in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def build_concat_volume(refimg_fea, targetimg_fea, maxdisp: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, 2 * C, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :C, i, :, :] = refimg_fea[:, :, :, :]
            volume[:, C:, i, :, i:] = targetimg_fea[:, :, :, :-i]
        else:
            volume[:, :C, i, :, :] = refimg_fea
            volume[:, C:, i, :, :] = targetimg_fea
    return volume.contiguous()


def groupwise_correlation_norm(fea1, fea2, num_groups: int):
    B, C, H, W = fea1.shape
    channels_per_group = C // num_groups
    fea1 = fea1.view([B, num_groups, channels_per_group, H, W])
    fea2 = fea2.view([B, num_groups, channels_per_group, H, W])
    cost = ((fea1 / (torch.norm(fea1, 2, 2, True) + 1e-05)) * (fea2 / (torch.norm(fea2, 2, 2, True) + 1e-05))).mean(dim=2)
    return cost


def build_gwc_volume_norm(refimg_fea, targetimg_fea, maxdisp: int, num_groups: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, num_groups, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :, i, :, i:] = groupwise_correlation_norm(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i],
                                                                num_groups)
        else:
            volume[:, :, i, :, :] = groupwise_correlation_norm(refimg_fea, targetimg_fea, num_groups)
    return volume.contiguous()


def norm_correlation(fea1, fea2):
    cost = torch.mean(((fea1 / (torch.norm(fea1, 2, 1, True) + 1e-05)) * (fea2 / (torch.norm(fea2, 2, 1, True) + 1e-05))),
                      dim=1, keepdim=True)
    return cost


def build_norm_correlation_volume(refimg_fea, targetimg_fea, maxdisp: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, 1, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :, i, :, i:] = norm_correlation(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i])
        else:
            volume[:, :, i, :, :] = norm_correlation(refimg_fea, targetimg_fea)
    return volume.contiguous()


class NormVolumes(nn.Module):
    def __init__(self, maxdisp: int = 8) -> None:
        super().__init__()
        self.maxdisp = maxdisp
        self.features = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        left, right = self.features(x[:, :3]), self.features(x[:, 3:])
        return torch.cat((build_concat_volume(left, right, self.maxdisp),
                          build_gwc_volume_norm(left, right, self.maxdisp, 2),
                          build_norm_correlation_volume(left, right, self.maxdisp)), dim=1)


def build() -> nn.Module:
    torch.manual_seed(0)
    return NormVolumes().eval()


def inputs(generator):
    return (torch.rand(1, 6, 4, 6, generator=generator),)
