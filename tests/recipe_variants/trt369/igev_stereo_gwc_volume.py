"""IGEV-Stereo's group-wise correlation volume as stereo_matching packages it (zoo 33's ``sm_igev_stereo``).

Reduced from stereo_matching 0.2.0 (PyPI, shriarul5273/stereo_matching),
stereo_matching/models/igev_stereo/modeling_igev_stereo.py: ``_igev_groupwise_correlation`` (lines
317-325) unpacks ``batch, channels, height, width = fea1.shape`` and views the product of the maps as
``(batch, num_groups, channels_per_group, height, width)`` before a mean over each group;
``_igev_build_gwc_volume`` (328-345) writes it into ``volume[:, :, idx, :, idx:]`` for each ``idx`` under
``if idx > 0:``, the arguments broken over three lines, and returns ``volume.contiguous()``. The zoo model
builds it with 48 quarter-resolution disparities (``self.args.max_disp // 4``) and 8 groups. Written in our
own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


def _igev_groupwise_correlation(fea1: torch.Tensor, fea2: torch.Tensor, num_groups: int) -> torch.Tensor:
    batch, channels, height, width = fea1.shape
    channels_per_group = channels // num_groups
    cost = (fea1 * fea2).view(batch, num_groups, channels_per_group, height, width).mean(dim=2)
    return cost


def _igev_build_gwc_volume(refimg_fea: torch.Tensor, targetimg_fea: torch.Tensor, maxdisp: int,
                           num_groups: int) -> torch.Tensor:
    batch, _, height, width = refimg_fea.shape
    volume = refimg_fea.new_zeros(batch, num_groups, maxdisp, height, width)
    for idx in range(maxdisp):
        if idx > 0:
            volume[:, :, idx, :, idx:] = _igev_groupwise_correlation(
                refimg_fea[:, :, :, idx:],
                targetimg_fea[:, :, :, :-idx],
                num_groups,
            )
        else:
            volume[:, :, idx, :, :] = _igev_groupwise_correlation(refimg_fea, targetimg_fea, num_groups)
    return volume.contiguous()


class IGEVVolume(nn.Module):
    def __init__(self, max_disp: int = 48) -> None:
        super().__init__()
        self.max_disp = max_disp
        self.match = nn.Conv2d(3, 16, 3, padding=1)

    def forward(self, x):
        match_left, match_right = self.match(x[:, :3]), self.match(x[:, 3:])
        return _igev_build_gwc_volume(match_left, match_right, self.max_disp // 4, 8)


def build() -> nn.Module:
    torch.manual_seed(0)
    return IGEVVolume().eval()


def inputs(generator):
    return (torch.rand(1, 6, 4, 9, generator=generator),)
