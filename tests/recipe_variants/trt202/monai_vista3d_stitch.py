"""MONAI VISTA3D's sliding-window stitching: window predictions summed into a zero volume and
counted in a second one, their ratio taken (0/0 is NaN where no window reached), then the
uncovered voxels filled from the previous mask, ``stitched_output[stitched_mask < 1] =
prev_mask[stitched_mask < 1]``: a full-shape mask, a value selected by the same mask, and NaN in
the rows the mask leaves.

Reduced from Project-MONAI/MONAI at tag 1.6.1 (the PyPI release the second zoo unpacks),
monai/apps/vista3d/inferer.py:107-115 and 120-139 (``point_based_window_inferer``: the zero
volumes, ``stitched_output[unravel_slice] += output``, ``stitched_mask[unravel_slice] = 1``,
``stitched_output = stitched_output / stitched_mask``, and for a given ``prev_mask`` the masked
fill), written here in our own words; the windows are two fixed slabs of the last axis in place
of the point-centred windows, the predictor a 1x1x1 convolution, the padding removal left out.
"""

import torch
from torch import Tensor, nn


class Stitch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.predictor = nn.Conv3d(1, 1, kernel_size=1)

    def forward(self, image: Tensor, prev_mask: Tensor) -> Tensor:
        stitched_output = torch.zeros_like(image)
        stitched_mask = torch.zeros_like(image)
        for start in (0, 2):
            stitched_output[..., start:start + 2] += self.predictor(image[..., start:start + 2])
            stitched_mask[..., start:start + 2] = 1
        stitched_output = stitched_output / stitched_mask
        stitched_output[stitched_mask < 1] = prev_mask[stitched_mask < 1]
        return stitched_output


def build() -> nn.Module:
    return Stitch()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    image = torch.randn(1, 1, 3, 4, 6, generator=generator)
    prev_mask = torch.randn(1, 1, 3, 4, 6, generator=generator)
    return image, prev_mask


DYNAMIC = {"image": {2: "depth", 3: "height"}, "prev_mask": {2: "depth", 3: "height"}}
