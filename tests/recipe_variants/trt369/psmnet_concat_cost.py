"""PSMNet's concatenation cost volume, written in its forward with the channel count read from ``.size()``.

Reduced from JiaRenChang/PSMNet, commit 87ac9093afbf6545c093bd9d26c5ffd66e49a7b8,
models/stackhourglass.py, ``PSMNet.forward`` (lines 110-119): ``cost[:, :refimg_fea.size()[1], i, :,i:] =
refimg_fea[:,:,:,i:]`` and ``cost[:, refimg_fea.size()[1]:, i, :,i:] = targetimg_fea[:,:,:,:-i]`` for
``i`` in ``range(self.maxdisp//4)`` under ``if i > 0 :``, the whole maps at ``i == 0``. The original
makes the volume as ``Variable(torch.FloatTensor(...).zero_()).cuda()``; here ``new_zeros`` of the same
sizes on the features' device. Written in our own words, the spacing of the slices kept.
"""

import torch
from torch import nn

DYNAMIC = {"x": {2: "height", 3: "width"}}


class PSMNetCost(nn.Module):
    def __init__(self, maxdisp: int = 32) -> None:
        super().__init__()
        self.maxdisp = maxdisp
        self.feature_extraction = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.dres0 = nn.Conv3d(8, 2, 3, padding=1)

    def forward(self, x):
        refimg_fea = self.feature_extraction(x[:, :3])
        targetimg_fea = self.feature_extraction(x[:, 3:])
        cost = refimg_fea.new_zeros(refimg_fea.size()[0], refimg_fea.size()[1]*2, self.maxdisp//4,
                                    refimg_fea.size()[2], refimg_fea.size()[3])
        for i in range(self.maxdisp//4):
            if i > 0 :
             cost[:, :refimg_fea.size()[1], i, :,i:]   = refimg_fea[:,:,:,i:]
             cost[:, refimg_fea.size()[1]:, i, :,i:] = targetimg_fea[:,:,:,:-i]
            else:
             cost[:, :refimg_fea.size()[1], i, :,:]   = refimg_fea
             cost[:, refimg_fea.size()[1]:, i, :,:]   = targetimg_fea
        cost = cost.contiguous()
        return self.dres0(cost)


def build() -> nn.Module:
    torch.manual_seed(0)
    return PSMNetCost().eval()


def inputs(generator):
    return (torch.rand(1, 6, 4, 6, generator=generator),)
