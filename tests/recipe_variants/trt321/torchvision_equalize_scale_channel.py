"""torchvision's histogram equalization: each channel of a uint8 image is counted into 256 levels
with ``torch.histc(img_chan.to(torch.float32), bins=256, min=0, max=255)``, the step is the count
of all but the last non-empty level over 255, and the cumulative histogram becomes a lookup table.

Reduced from torchvision 0.29.1 (the PyPI wheel the zoo unpacks),
torchvision/transforms/_functional_tensor.py, ``_scale_channel`` lines 863-883 (the histc at
line 869) and ``_equalize_single_image`` lines 884-885. Written here in our own words: the
histc branch (torchvision takes it for CUDA tensors, ``torch.bincount`` on CPU) is the only one;
the early ``return img_chan`` when the step is zero is a ``torch.where``; one image (C, H, W),
three channels.
"""

import torch
from torch import nn
from torch.nn import functional as F


def scale_channel(img_chan: torch.Tensor) -> torch.Tensor:
    hist = torch.histc(img_chan.to(torch.float32), bins=256, min=0, max=255)
    nonzero_hist = hist[hist != 0]
    step = torch.div(nonzero_hist[:-1].sum(), 255, rounding_mode="floor")
    lut = torch.div(torch.cumsum(hist, 0) + torch.div(step, 2, rounding_mode="floor"), step, rounding_mode="floor")
    lut = F.pad(lut, [1, 0])[:-1].clamp(0, 255)
    return torch.where(step == 0, img_chan, lut[img_chan.to(torch.int64)].to(torch.uint8))


class Equalize(nn.Module):
    def forward(self, img: torch.Tensor) -> torch.Tensor:
        return torch.stack([scale_channel(img[c]) for c in range(img.size(0))])


def build() -> nn.Module:
    return Equalize()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return ((torch.rand(3, 9, 8, generator=generator) * 120 + 40).to(torch.uint8),)


DYNAMIC = {"img": {1: "height", 2: "width"}}
