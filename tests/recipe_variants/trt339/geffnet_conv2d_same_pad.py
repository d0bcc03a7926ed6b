"""geffnet's TensorFlow-style "same" convolution: the pad is computed from the input's size on every call.

Reduced from the copy of Ross Wightman's gen-efficientnet-pytorch (github.com/rwightman/gen-efficientnet-pytorch,
``geffnet/conv2d_layers.py``) that controlnet-aux 0.0.10 vendors for its NormalBae annotator
(``controlnet_aux/normalbae/nets/submodules/efficientnet_repo/geffnet/conv2d_layers.py``: ``_calc_same_pad``,
line 46-47, ``conv2d_same``, lines 65-73, and ``Conv2dSame``, lines 76-88), which zoo 61's
``cnaux_normalbae_normals`` builds. ``_calc_same_pad(i: int, k, s, d)`` is ``max((-(i // -s) - 1) * s + (k - 1) * d
+ 1 - i, 0)``: the ceiling of ``i / s`` written as ``-(i // -s)``. ``conv2d_same`` hands it the traced height and
width (``ih, iw = x.size()[-2:]``), so under the TorchScript exporter ``max`` compares a 0-d tensor in Python (the
pad is baked) and ``i // -s`` is a truncating Div (one short wherever the stride does not divide the size). Written
here in our own words: a stem of two stride-2 "same" convolutions and one stride-1 one, as EfficientNet's TF ports
begin, with no batch norm or activation between them.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _calc_same_pad(i: int, k: int, s: int, d: int):
    return max((-(i // -s) - 1) * s + (k - 1) * d + 1 - i, 0)


def conv2d_same(x, weight: torch.Tensor, bias=None, stride=(1, 1), dilation=(1, 1), groups: int = 1):
    ih, iw = x.size()[-2:]
    kh, kw = weight.size()[-2:]
    pad_h = _calc_same_pad(ih, kh, stride[0], dilation[0])
    pad_w = _calc_same_pad(iw, kw, stride[1], dilation[1])
    x = F.pad(x, [pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2])
    return F.conv2d(x, weight, bias, stride, (0, 0), dilation, groups)


class Conv2dSame(nn.Conv2d):
    """A convolution padded as TensorFlow's "SAME" pads: the output is ``ceil(size / stride)``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, dilation=1, groups=1, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, 0, dilation, groups, bias)

    def forward(self, x):
        return conv2d_same(x, self.weight, self.bias, self.stride, self.dilation, self.groups)


class SameStem(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv_stem = Conv2dSame(3, 8, 3, stride=2, bias=False)
        self.conv_dw = Conv2dSame(8, 8, 5, stride=2, groups=8, bias=False)
        self.conv_pw = Conv2dSame(8, 4, 1)

    def forward(self, x):
        return self.conv_pw(self.conv_dw(self.conv_stem(x)))


def build() -> nn.Module:
    torch.manual_seed(0)
    return SameStem().eval()


def inputs(generator: torch.Generator | None = None) -> tuple[torch.Tensor, ...]:
    # 16 x 24: both strides divide it; at 17 x 23 (the observer's other sizes) neither does.
    return (torch.randn(2, 3, 16, 24, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
