"""RGB to YUV 4:2:0: the chroma planes averaged over 2 x 2 blocks with two ``unfold(-2, 2, 2)``.

Reduced from kornia/kornia at commit b4f5a78a13891c7ac4c1cd9695941380273e981d,
kornia/color/yuv.py, ``rgb_to_yuv420`` (lines 69-103, behind ``RgbToYuv420.forward``, line 343):
after the odd-size check and the RGB to YUV matrix, the U and V planes
``yuvimage[..., 1:3, :, :]`` are unfolded twice along the axis second from last (the height, then
the width, which has become second from last) and averaged with ``.mean((-1, -2))``. Written here
in our own words as a module that returns the subsampled chroma planes (the Y plane, a slice of
the input's transform, is left out); the matrix is ``rgb_to_yuv``'s M/PAL one. An odd height or
width raises, as kornia's check does, so every size the model takes is a multiple of the window.
"""

import torch
from torch import nn

_RGB_TO_YUV = (
    (0.299, 0.587, 0.114),
    (-0.147, -0.289, 0.436),
    (0.615, -0.515, -0.100),
)


class RgbToYuv420Chroma(nn.Module):
    def forward(self, image):
        if len(image.shape) < 2 or image.shape[-2] % 2 == 1 or image.shape[-1] % 2 == 1:
            raise ValueError(f"Input H&W must be evenly divisible by 2. Got {image.shape}")
        kernel = torch.tensor(_RGB_TO_YUV, dtype=image.dtype)
        yuvimage = torch.einsum("ij,...jhw->...ihw", kernel, image)
        return yuvimage[..., 1:3, :, :].unfold(-2, 2, 2).unfold(-2, 2, 2).mean((-1, -2))


def build() -> nn.Module:
    return RgbToYuv420Chroma()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 3, 6, 10, generator=generator),)


DYNAMIC = {"image": {0: "batch", 2: "height", 3: "width"}}
