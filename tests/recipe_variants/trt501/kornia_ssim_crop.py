"""kornia's SSIM crops the valid convolution area out of its maps with ``F.pad`` and negative
pads: ``torch.nn.functional.pad(img, (-c[2], -c[3], -c[0], -c[1]))``, the amounts taken from
the Gaussian window's padding. A negative pad removes border pixels; a zero block cannot stand
for it, so TRT501 must leave it alone (it reports computed pads, and writes nothing).

Reduced from kornia at tag v0.9.0 (the PyPI release the zoo unpacks), kornia/metrics/ssim.py:32-36
(``_crop``) and its use in ``ssim`` with ``padding="valid"`` (the maps filtered with a Gaussian
window, then cropped by the window's half size), written here in our own words with a box filter
for the Gaussian one.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def _crop(img: Tensor, cropping_shape: list[int]) -> Tensor:
    return torch.nn.functional.pad(img, (-cropping_shape[2], -cropping_shape[3], -cropping_shape[0], -cropping_shape[1]))


class ValidMean(nn.Module):
    def __init__(self, window_size: int = 3) -> None:
        super().__init__()
        self.window_size = window_size

    def forward(self, img: Tensor) -> Tensor:
        half = self.window_size // 2
        mean = F.avg_pool2d(img, self.window_size, stride=1, padding=half, count_include_pad=True)
        return _crop(mean, [half, half, half, half])


def build() -> nn.Module:
    return ValidMean()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 2, 7, 6, generator=generator),)


DYNAMIC = {"img": {0: "batch", 2: "height", 3: "width"}}
