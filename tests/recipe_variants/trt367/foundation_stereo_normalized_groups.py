"""FoundationStereo's group-wise cosine volume: each feature map reshaped into groups, then normalized.

Reduced from stereo_matching 0.2.0 (PyPI), stereo_matching/models/foundation_stereo/modeling_foundation_stereo.py
(its port of NVlabs/FoundationStereo's ``core/submodule.py``): ``_fs_groupwise_correlation`` (lines 372-379)
reads ``B, C, H, W = fea1.shape``, reshapes each of the two maps on its own to ``(B, num_groups,
channels_per_group, H, W)``, normalizes both along the group's channels and sums their product;
``_fs_build_gwc_volume`` (lines 382-390) calls it on ``refimg_fea[:, :, :, i:]`` against
``targetimg_fea[:, :, :, :-i]`` for every disparity ``i``. Kept: ``reshape`` of each input (not of a
product), the normalization and the shifted slices. Reduced: an 8-channel feature layer, 2 groups and 10
disparities, the float32 autocast block dropped (the model runs in float32). Where ``i`` passes the width
``W`` is 0 and the exported ``Reshape`` reads it as "copy the input's size". Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def groupwise_cosine(fea1, fea2, num_groups: int):
    B, C, H, W = fea1.shape
    per_group = C // num_groups
    fea1 = fea1.reshape(B, num_groups, per_group, H, W)
    fea2 = fea2.reshape(B, num_groups, per_group, H, W)
    return (F.normalize(fea1, dim=2) * F.normalize(fea2, dim=2)).sum(dim=2)


def cosine_volume(refimg_fea, targetimg_fea, maxdisp: int, num_groups: int):
    B, C, H, W = refimg_fea.shape
    volume = refimg_fea.new_zeros([B, num_groups, maxdisp, H, W])
    for i in range(maxdisp):
        if i > 0:
            volume[:, :, i, :, i:] = groupwise_cosine(refimg_fea[:, :, :, i:], targetimg_fea[:, :, :, :-i], num_groups)
        else:
            volume[:, :, i, :, :] = groupwise_cosine(refimg_fea, targetimg_fea, num_groups)
    return volume.contiguous()


class CosineVolume(nn.Module):
    def __init__(self, maxdisp: int = 10, groups: int = 2) -> None:
        super().__init__()
        self.maxdisp, self.groups = maxdisp, groups
        self.features = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return cosine_volume(self.features(x[:, :3]), self.features(x[:, 3:]), self.maxdisp, self.groups)


def build() -> nn.Module:
    torch.manual_seed(0)
    return CosineVolume().eval()


def inputs(generator):
    return (torch.rand(1, 6, 4, 7, generator=generator),)
