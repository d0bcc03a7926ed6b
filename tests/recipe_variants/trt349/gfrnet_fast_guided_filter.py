"""The fast guided filter as copied into face-restoration code: coefficients computed at low resolution,
their pixel counts from ``Variable(lr_x.data.new().resize_((1, 1, h_lrx, w_lrx)).fill_(1.0))``, then
upsampled (``F.upsample``, bilinear, the pre-1.0 spelling) to the high-resolution guide.

Reduced from sonack/GFRNet_pytorch_new at d9f7fbbe2c3f7fe1d9f01b20d7683b511e128503,
guided_filter_pytorch/guided_filter.py, ``FastGuidedFilter.forward`` (lines 16-47; the plane of ones at
line 27), a copy of Huikai Wu's ``FastGuidedFilter`` (wuhuikai/DeepGuidedFilter, which now calls
``F.interpolate(..., align_corners=True)``). Written here in our own words: ``F.interpolate`` with
``align_corners=False`` (what ``F.upsample`` did by default since torch 0.4.1), the box filter a padded
cumulative sum, a radius of 1.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable


def box_sum(x: torch.Tensor, r: int) -> torch.Tensor:
    rows = F.pad(x, (0, 0, r + 1, r)).cumsum(dim=2)
    x = rows[:, :, 2 * r + 1:] - rows[:, :, :-2 * r - 1]
    columns = F.pad(x, (r + 1, r)).cumsum(dim=3)
    return columns[:, :, :, 2 * r + 1:] - columns[:, :, :, :-2 * r - 1]


class FastGuidedFilter(nn.Module):
    def __init__(self, r: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.r = r
        self.eps = eps

    def forward(self, lr_x, lr_y, hr_x):
        n_lrx, c_lrx, h_lrx, w_lrx = lr_x.size()
        n_hrx, c_hrx, h_hrx, w_hrx = hr_x.size()
        N = box_sum(Variable(lr_x.data.new().resize_((1, 1, h_lrx, w_lrx)).fill_(1.0)), self.r)
        mean_x = box_sum(lr_x, self.r) / N
        mean_y = box_sum(lr_y, self.r) / N
        cov_xy = box_sum(lr_x * lr_y, self.r) / N - mean_x * mean_y
        var_x = box_sum(lr_x * lr_x, self.r) / N - mean_x * mean_x
        A = cov_xy / (var_x + self.eps)
        b = mean_y - A * mean_x
        mean_A = F.interpolate(A, (h_hrx, w_hrx), mode="bilinear", align_corners=False)
        mean_b = F.interpolate(b, (h_hrx, w_hrx), mode="bilinear", align_corners=False)
        return mean_A * hr_x + mean_b


def build() -> nn.Module:
    return FastGuidedFilter().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 1, 4, 5, generator=generator), torch.rand(2, 3, 4, 5, generator=generator),
            torch.rand(2, 1, 8, 10, generator=generator))


_AXES = {0: "batch", 2: "h", 3: "w"}
DYNAMIC = {"lr_x": _AXES, "lr_y": _AXES, "hr_x": {0: "batch", 2: "H", 3: "W"}}
