"""SpeckleNoisePytorch's ``median_pool_2d``, which the octave-convolution despeckling networks call
between their layers: the ``k x k`` patches are unfolded (``F.unfold``), reshaped so that each
patch is a column per channel, and the median is taken over the patch axis with the values and the
indices unpacked into two names (``med_unf_input, med_unf_indexes = th.median(row_unf_input, dim =
2, keepdim=True)``, ``torch`` imported as ``th``; the indices are never read); the output size is
computed with ``math.floor`` from the input's size.

Reduced from StephenYang190/SpeckleNoisePytorch, commit 5a2d759c10aaf9ad8f1f3407cfc4c3df098a047b,
model/median_pooling.py, ``median_pool_2d`` lines 15-42 (the median at line 36), called from
``SNRom.forward`` in model/SNRom.py (``x_h = median_pool_2d(x_h, self.kernel_size, self.stride,
self.padding, self.dilation)``). Written here in our own words, with the input assertion left out
and a single convolution on each side.
"""

import math

import torch as th
import torch.nn.functional as thFn
from torch import nn


def unpack_param_2d(param):
    if isinstance(param, (tuple, list)):
        return param[0], param[1]
    return param, param


def median_pool_2d(input, kernel_size, stride, padding, dilation):
    b_size, c_size, h_size, w_size = input.size()
    k_h, k_w = unpack_param_2d(kernel_size)
    s_h, s_w = unpack_param_2d(stride)
    p_h, p_w = unpack_param_2d(padding)
    d_h, d_w = unpack_param_2d(dilation)

    unf_input = thFn.unfold(input, kernel_size, dilation, padding, stride)
    row_unf_input = unf_input.reshape(b_size, c_size, k_h * k_w, -1)
    # the median of each patch, channel by channel
    med_unf_input, med_unf_indexes = th.median(row_unf_input, dim=2, keepdim=True)

    out_w = math.floor(((w_size + (2 * p_w) - (d_w * (k_w - 1)) - 1) / s_w) + 1)
    out_h = math.floor(((h_size + (2 * p_h) - (d_h * (k_h - 1)) - 1) / s_h) + 1)
    return med_unf_input.reshape(b_size, c_size, out_h, out_w)


class Despeckle(nn.Module):
    def __init__(self, kernel_size: int = 3, stride: int = 1, padding: int = 1, dilation: int = 1) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.head = nn.Conv2d(1, 4, 3, padding=1)
        self.tail = nn.Conv2d(4, 1, 3, padding=1)

    def forward(self, x):
        x_h = self.head(x)
        x_h = median_pool_2d(x_h, self.kernel_size, self.stride, self.padding, self.dilation)
        return self.tail(x_h)


def build() -> nn.Module:
    return Despeckle()


def inputs(generator):
    return (th.randn(2, 1, 8, 7, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
