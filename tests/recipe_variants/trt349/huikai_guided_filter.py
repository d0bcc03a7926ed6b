"""Huikai Wu's guided filter: the number of pixels under each box is counted by box-filtering a plane of
ones made as an empty tensor grown to the guide's size, ``Variable(x.data.new().resize_((1, 1, h_x,
w_x)).fill_(1.0))``, and every mean divides by it.

Reduced from wuhuikai/DeepGuidedFilter at a11063fdd33737fdf45a99973feaf3876e291d1f,
GuidedFilteringLayer/GuidedFilter_PyTorch/guided_filter_pytorch/guided_filter.py, ``GuidedFilter.forward``
(lines 60-90; the plane of ones at line 70). Written here in our own words: the box filter is a padded
cumulative sum (the original's ``BoxFilter`` differences cumulative sums at the borders itself), a radius
of 1 and a three-channel input under a one-channel guide.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import Variable


def box_sum(x: torch.Tensor, r: int) -> torch.Tensor:
    """The sum over a (2r + 1)-square window, the window cut at the borders."""
    rows = F.pad(x, (0, 0, r + 1, r)).cumsum(dim=2)
    x = rows[:, :, 2 * r + 1:] - rows[:, :, :-2 * r - 1]
    columns = F.pad(x, (r + 1, r)).cumsum(dim=3)
    return columns[:, :, :, 2 * r + 1:] - columns[:, :, :, :-2 * r - 1]


class GuidedFilter(nn.Module):
    def __init__(self, r: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.r = r
        self.eps = eps

    def forward(self, x, y):
        n_x, c_x, h_x, w_x = x.size()
        n_y, c_y, h_y, w_y = y.size()
        assert n_x == n_y
        assert c_x == 1 or c_x == c_y
        N = box_sum(Variable(x.data.new().resize_((1, 1, h_x, w_x)).fill_(1.0)), self.r)
        mean_x = box_sum(x, self.r) / N
        mean_y = box_sum(y, self.r) / N
        cov_xy = box_sum(x * y, self.r) / N - mean_x * mean_y
        var_x = box_sum(x * x, self.r) / N - mean_x * mean_x
        A = cov_xy / (var_x + self.eps)
        b = mean_y - A * mean_x
        mean_A = box_sum(A, self.r) / N
        mean_b = box_sum(b, self.r) / N
        return mean_A * x + mean_b


def build() -> nn.Module:
    return GuidedFilter().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 1, 5, 6, generator=generator), torch.rand(2, 3, 5, 6, generator=generator)


DYNAMIC = {"x": {0: "batch", 2: "h", 3: "w"}, "y": {0: "batch", 2: "h", 3: "w"}}
