"""A tracker's patch resampling: an image patch resized to an output size given as a tensor, the
size handed to ``F.interpolate`` positionally with ``.long().tolist()``.

Reduced from visionml/pytracking@7eb9e74bd3d40e29dbcec444902237da13de247b
pytracking/features/preprocessing.py:144 (``sample_patch``): after the crop, ``im_patch =
F.interpolate(im_patch, output_sz.long().tolist(), mode='bilinear')``, where ``output_sz`` is a
tensor of the wanted height and width (a float tensor in the trackers' settings). Written here in our
own words as a module of the resampling step alone: the crop, the pre-downsampling and the early
return when the patch already has the output size are left out.
"""

import torch
import torch.nn.functional as F
from torch import nn


class PatchResample(nn.Module):
    def forward(self, patch: torch.Tensor, output_sz: torch.Tensor) -> torch.Tensor:
        return F.interpolate(patch, output_sz.long().tolist(), mode="bilinear")


def build() -> nn.Module:
    return PatchResample()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 3, 12, 10, generator=generator), torch.tensor([7.0, 9.0])


DYNAMIC = {"patch": {0: "batch", 2: "height", 3: "width"}}
