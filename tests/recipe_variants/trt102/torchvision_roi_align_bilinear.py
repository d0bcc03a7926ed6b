"""torchvision's pure-PyTorch RoIAlign (the path ``torch.compile`` and the meta kernels use):
the integer corner indices of each sample point are clamped at the feature map's last row and
column with ``torch.where``, the clamp value being a Python int computed from the input's size
(``height - 1``), and, for adaptive sampling, the indices of samples beyond a RoI's grid are
zeroed with a mask broadcast over the output bins (``ymask[:, None, :]``, a literal ``0``).

Reduced from pytorch/vision at tag v0.29.1 (the PyPI release the zoo unpacks),
torchvision/ops/roi_align.py:35-80 (``_bilinear_interpolate``: ``y_low = y.int()``, the three
selects per axis at :50-56, ``masked_index`` with the two masked selects at :72-73, the gathered
corner values and the bilinear weights ``ly``, ``hy``...), written here in our own words for one
image and one sample per bin (the ``roi_batch_ind`` and sampling-ratio logic is left out): the
model takes sample coordinates and masks directly.
"""

import torch
from torch import Tensor, nn


class BilinearSample(nn.Module):
    def forward(self, feat: Tensor, y: Tensor, x: Tensor, ymask: Tensor, xmask: Tensor) -> Tensor:
        # feat [C, H, W]; y [K, PH, IY], x [K, PW, IX]; ymask [K, IY], xmask [K, IX]
        _, height, width = feat.shape
        y = y.clamp(min=0)
        x = x.clamp(min=0)
        y_low = y.int()
        x_low = x.int()
        y_high = torch.where(y_low >= height - 1, height - 1, y_low + 1)
        y_low = torch.where(y_low >= height - 1, height - 1, y_low)
        y = torch.where(y_low >= height - 1, y.to(feat.dtype), y)
        x_high = torch.where(x_low >= width - 1, width - 1, x_low + 1)
        x_low = torch.where(x_low >= width - 1, width - 1, x_low)
        x = torch.where(x_low >= width - 1, x.to(feat.dtype), x)
        ly = y - y_low
        lx = x - x_low
        hy = 1.0 - ly
        hx = 1.0 - lx

        def masked_index(yi: Tensor, xi: Tensor) -> Tensor:
            yi = torch.where(ymask[:, None, :], yi, 0)
            xi = torch.where(xmask[:, None, :], xi, 0)
            return feat[:, yi[:, :, None, :, None].long(), xi[:, None, :, None, :].long()]

        v1 = masked_index(y_low, x_low)
        v2 = masked_index(y_low, x_high)
        v3 = masked_index(y_high, x_low)
        v4 = masked_index(y_high, x_high)

        def weight(wy: Tensor, wx: Tensor) -> Tensor:
            return wy[:, :, None, :, None] * wx[:, None, :, None, :]

        return (weight(hy, hx) * v1 + weight(hy, lx) * v2 + weight(ly, hx) * v3 + weight(ly, lx) * v4)


def build() -> nn.Module:
    return BilinearSample()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    feat = torch.randn(2, 5, 6, generator=generator)
    y = torch.rand(3, 2, 2, generator=generator) * 6  # some beyond the last row (clamped there)
    x = torch.rand(3, 2, 2, generator=generator) * 7
    ymask = torch.tensor([[True, True], [True, False], [False, True]])
    xmask = torch.tensor([[True, False], [True, True], [True, True]])
    return feat, y, x, ymask, xmask


DYNAMIC = {"feat": {1: "height", 2: "width"}, "y": {0: "rois"}, "x": {0: "rois"}, "ymask": {0: "rois"},
           "xmask": {0: "rois"}}
