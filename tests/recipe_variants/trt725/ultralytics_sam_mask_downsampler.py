"""Ultralytics' SAM 2 memory encoder: ``MaskDownSampler`` first resizes the incoming mask to a
fixed ``interpol_size`` (a list made in ``__init__``) whenever the mask has another size,
bilinearly with the literal ``antialias=True``, in float32 and cast back to the mask's dtype, then
encodes it with strided convolutions. The output size is fixed while the input's varies.

Reduced from ultralytics 8.4.190 (the PyPI wheel the second zoo unpacks),
ultralytics/models/sam/modules/blocks.py, ``MaskDownSampler.__init__`` lines 75-113 (the
convolution / LayerNorm2d / GELU stack, ``self.interpol_size = list(interpol_size)``) and
``forward`` lines 115-125 (the size check against ``list(x.shape[-2:])`` and the call with
``size=self.interpol_size``, ``align_corners=False``, ``mode="bilinear"``, ``antialias=True``,
then ``.to(x.dtype)``). Written here in our own words: one strided convolution, a GroupNorm for
LayerNorm2d, GELU and a 1x1 convolution; the size check is left out (at the fixed size the
antialiased resize is the identity, and a traced export would fix the check's outcome anyway).
"""

import torch
import torch.nn.functional as F
from torch import nn


class MaskDownSampler(nn.Module):
    def __init__(self, embed_dim: int = 8, stride: int = 4, interpol_size: tuple = (24, 24)) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, stride * stride, stride, stride=stride),
                                     nn.GroupNorm(1, stride * stride), nn.GELU(),
                                     nn.Conv2d(stride * stride, embed_dim, 1))
        self.interpol_size = list(interpol_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.interpolate(
            x.float(),
            size=self.interpol_size,
            align_corners=False,
            mode="bilinear",
            antialias=True,
        ).to(x.dtype)
        return self.encoder(x)


def build() -> nn.Module:
    return MaskDownSampler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 1, 64, 48, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
