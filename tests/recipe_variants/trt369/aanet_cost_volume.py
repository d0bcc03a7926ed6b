"""AANet's ``CostVolume``: difference, concatenation and (4-D) correlation volumes over shifted columns.

Reduced from haofeixu/aanet, commit 8d0d747e69bbdba43e2578b60ad7df63ba7fdac2, nets/cost.py,
``CostVolume.forward`` (lines 19-55): for ``feature_similarity == 'difference'`` it writes
``left_feature[:, :, :, i:] - right_feature[:, :, :, :-i]`` into ``cost_volume[:, :, i, :, i:]``; for
``'concat'`` the ``torch.cat`` of the two slices over channels; for ``'correlation'`` a 4-D volume,
``cost_volume[:, i, :, i:] = (left_feature[:, :, :, i:] * right_feature[:, :, :, :-i]).mean(dim=1)``,
the product broken over two lines. Written here in our own words, the three branches kept; the model
builds all three (one module each) and returns them.
"""

import torch
import torch.nn as nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


class CostVolume(nn.Module):
    def __init__(self, max_disp, feature_similarity='correlation'):
        super(CostVolume, self).__init__()
        self.max_disp = max_disp
        self.feature_similarity = feature_similarity

    def forward(self, left_feature, right_feature):
        b, c, h, w = left_feature.size()
        if self.feature_similarity == 'difference':
            cost_volume = left_feature.new_zeros(b, c, self.max_disp, h, w)
            for i in range(self.max_disp):
                if i > 0:
                    cost_volume[:, :, i, :, i:] = left_feature[:, :, :, i:] - right_feature[:, :, :, :-i]
                else:
                    cost_volume[:, :, i, :, :] = left_feature - right_feature
        elif self.feature_similarity == 'concat':
            cost_volume = left_feature.new_zeros(b, 2 * c, self.max_disp, h, w)
            for i in range(self.max_disp):
                if i > 0:
                    cost_volume[:, :, i, :, i:] = torch.cat((left_feature[:, :, :, i:], right_feature[:, :, :, :-i]),
                                                            dim=1)
                else:
                    cost_volume[:, :, i, :, :] = torch.cat((left_feature, right_feature), dim=1)
        elif self.feature_similarity == 'correlation':
            cost_volume = left_feature.new_zeros(b, self.max_disp, h, w)
            for i in range(self.max_disp):
                if i > 0:
                    cost_volume[:, i, :, i:] = (left_feature[:, :, :, i:] *
                                                right_feature[:, :, :, :-i]).mean(dim=1)
                else:
                    cost_volume[:, i, :, :] = (left_feature * right_feature).mean(dim=1)
        else:
            raise NotImplementedError
        cost_volume = cost_volume.contiguous()
        return cost_volume


class ThreeVolumes(nn.Module):
    def __init__(self, max_disp: int = 9) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, 4, 3, padding=1)
        self.volumes = nn.ModuleList(CostVolume(max_disp, kind) for kind in ('difference', 'concat', 'correlation'))

    def forward(self, x):
        left, right = self.features(x[:, :3]), self.features(x[:, 3:])
        difference, concat, correlation = (volume(left, right) for volume in self.volumes)
        return difference.sum(1) + concat.sum(1) + correlation


def build() -> nn.Module:
    torch.manual_seed(0)
    return ThreeVolumes().eval()


def inputs(generator):
    return (torch.rand(1, 6, 3, 6, generator=generator),)
