"""Segment Anything's preprocessing: the image is normalised with the pixel mean and standard
deviation, then padded with zeros on the right and at the bottom to the image encoder's square
input size, ``F.pad(x, (0, padw, 0, padh))`` with ``padh = img_size - h`` computed from the
input's own size.

Reduced from facebookresearch/segment-anything at tag v1.0 (the PyPI release the zoo unpacks),
segment_anything/modeling/sam.py:164-175 (``Sam.preprocess``), written here in our own words
with a small ``img_size``.

Not rewritten, reported: the pads are computed from the traced size, so no concatenation of
fixed zero blocks can stand for them at other sizes (``_trt_zero_pad`` would export ``F.pad``
anyway), and they go negative (a crop) for an image larger than ``img_size``. Both exporters
emit a ``Pad`` whose ``pads`` come from the input's shape at run time, which TensorRT 8.2 and
newer parse; the message says what to do for older ones.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class Preprocess(nn.Module):
    def __init__(self, img_size: int = 16) -> None:
        super().__init__()
        self.img_size = img_size
        self.register_buffer("pixel_mean", torch.tensor([123.675, 116.28, 103.53]).view(-1, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([58.395, 57.12, 57.375]).view(-1, 1, 1))

    def forward(self, x: Tensor) -> Tensor:
        x = (x - self.pixel_mean) / self.pixel_std
        h, w = x.shape[-2:]
        padh = self.img_size - h
        padw = self.img_size - w
        x = F.pad(x, (0, padw, 0, padh))
        return x


def build() -> nn.Module:
    return Preprocess()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 12, 9, generator=generator) * 255,)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
