"""XFeat's keypoint head reads 8 x 8 cells of the image as 64 channels: ``_unfold2d``.

Reduced from verlab/accelerated_features at commit e92685f57f8318b18725c5c8c0bd28c7fe188d9a,
modules/model.py, ``XFeatModel._unfold2d`` (lines 113-120) and its call in ``XFeatModel.forward``
(lines 123-154): the image is averaged to one channel and instance-normalized, then
``x.unfold(2,  ws , ws).unfold(3, ws,ws)`` (a chain continued with a backslash onto
``.reshape(B, C, H//ws, W//ws, ws**2)``) cuts it into ``ws`` x ``ws`` cells, which are moved to
the channel axis and fed to the keypoint head (``ws=8``). Written here in our own words with
the head cut to two 1 x 1 convolutions; the backbone branch is left out. Heights and widths
that are not multiples of 8 run: ``unfold`` drops the last rows and columns.
"""

import torch
from torch import nn


class XFeatKeypoints(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.InstanceNorm2d(1)
        self.keypoint_head = nn.Sequential(nn.Conv2d(64, 32, 1), nn.ReLU(), nn.Conv2d(32, 65, 1))

    def _unfold2d(self, x, ws=2):
        B, C, H, W = x.shape
        x = x.unfold(2,  ws , ws).unfold(3, ws,ws) \
            .reshape(B, C, H//ws, W//ws, ws**2)
        return x.permute(0, 1, 4, 2, 3).reshape(B, -1, H//ws, W//ws)

    def forward(self, x):
        with torch.no_grad():
            x = x.mean(dim=1, keepdim=True)
            x = self.norm(x)
        return self.keypoint_head(self._unfold2d(x, ws=8))


def build() -> nn.Module:
    return XFeatKeypoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 32, 48, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
