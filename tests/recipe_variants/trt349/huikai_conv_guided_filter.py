"""The deep guided filter's learned variant: a depthwise convolution of ones is the box filter, its pixel
counts taken from a three-channel plane of ones grown from an empty tensor like the low-resolution input,
``x_lr.data.new().resize_((1, 3, h_lrx, w_lrx)).fill_(1.0)`` (no ``Variable``), and the coefficients,
mapped by 1x1 convolutions, are upsampled to the high-resolution guide.

Reduced from wuhuikai/DeepGuidedFilter at a11063fdd33737fdf45a99973feaf3876e291d1f,
GuidedFilteringLayer/GuidedFilter_PyTorch/guided_filter_pytorch/guided_filter.py, ``ConvGuidedFilter``
(lines 92-129; the plane of ones at line 110), copied unchanged into burst-denoising code such as
pminhtam/KPN_attention at 63dc433f312270a1c7ab43aa14671e42809b0c21, guided_filter_pytorch/guided_filter.py
(lines 93-130). Written here in our own words: 8 hidden channels where the original has 32.
"""

import torch
import torch.nn.functional as F
from torch import nn


class ConvGuidedFilter(nn.Module):
    def __init__(self, radius: int = 1, hidden: int = 8) -> None:
        super().__init__()
        self.box_filter = nn.Conv2d(3, 3, kernel_size=3, padding=radius, dilation=radius, bias=False, groups=3)
        self.conv_a = nn.Sequential(nn.Conv2d(6, hidden, kernel_size=1, bias=False), nn.BatchNorm2d(hidden),
                                    nn.ReLU(inplace=True), nn.Conv2d(hidden, 3, kernel_size=1, bias=False))
        self.box_filter.weight.data[...] = 1.0

    def forward(self, x_lr, y_lr, x_hr):
        _, _, h_lrx, w_lrx = x_lr.size()
        _, _, h_hrx, w_hrx = x_hr.size()
        N = self.box_filter(x_lr.data.new().resize_((1, 3, h_lrx, w_lrx)).fill_(1.0))
        mean_x = self.box_filter(x_lr) / N
        mean_y = self.box_filter(y_lr) / N
        cov_xy = self.box_filter(x_lr * y_lr) / N - mean_x * mean_y
        var_x = self.box_filter(x_lr * x_lr) / N - mean_x * mean_x
        A = self.conv_a(torch.cat([cov_xy, var_x], dim=1))
        b = mean_y - A * mean_x
        mean_A = F.interpolate(A, (h_hrx, w_hrx), mode="bilinear", align_corners=True)
        mean_b = F.interpolate(b, (h_hrx, w_hrx), mode="bilinear", align_corners=True)
        return mean_A * x_hr + mean_b


def build() -> nn.Module:
    return ConvGuidedFilter().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 4, 5, generator=generator), torch.rand(2, 3, 4, 5, generator=generator),
            torch.rand(2, 3, 8, 10, generator=generator))


_AXES = {0: "batch", 2: "h", 3: "w"}
DYNAMIC = {"x_lr": _AXES, "y_lr": _AXES, "x_hr": {0: "batch", 2: "H", 3: "W"}}
