"""timm's ``MedianPool2d`` (a median filter with stride 1): the padded image is unfolded into
``k x k`` windows along both spatial axes, the window axes are merged into one with ``view`` and
the median taken as a method chained on it (``x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]``).

Reduced from timm 1.0.31 (the PyPI wheel the zoo unpacks), timm/layers/median_pool.py,
``MedianPool2d.forward`` lines 45-49 (the median at line 48), ``__init__`` lines 18-23. Written
here in our own words, with a fixed padding of one pixel on each side (timm's ``same=True`` branch
computes the padding from the traced size; with stride 1 it is the same constant), between two
convolutions so the model has weights. The filter is held as ``self.median``: the exporter prints
that module scope in the error it stops with at the unfold, which ``migrate`` once read as the
operator ``median``.
"""

import torch.nn.functional as F
from torch import nn


class MedianPool2d(nn.Module):
    def __init__(self, kernel_size: int = 3, stride: int = 1, padding: int = 1) -> None:
        super().__init__()
        self.k = (kernel_size, kernel_size)
        self.stride = (stride, stride)
        self.padding = (padding, padding, padding, padding)

    def forward(self, x):
        x = F.pad(x, self.padding, mode="reflect")
        x = x.unfold(2, self.k[0], self.stride[0]).unfold(3, self.k[1], self.stride[1])
        x = x.contiguous().view(x.size()[:4] + (-1,)).median(dim=-1)[0]
        return x


class Denoiser(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = nn.Conv2d(3, 4, 3, padding=1)
        self.median = MedianPool2d()
        self.outer = nn.Conv2d(4, 3, 1)

    def forward(self, image):
        return self.outer(self.median(self.inner(image)))


def build() -> nn.Module:
    return Denoiser()


def inputs(generator):
    import torch

    return (torch.randn(2, 3, 7, 9, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
