"""kornia's ``CombineTensorPatches``: overlapping patches summed back and divided by the overlap count.

Reduced from kornia/kornia 0.9.0, kornia/contrib/extract_patches.py, ``combine_tensor_patches``
(lines 391-509, behind ``CombineTensorPatches.forward``, lines 352-373), its floating-point path:
a ones image is unfolded and folded back as the overlap count with
``F.fold(input=unfold_ones, output_size=restored_size, kernel_size=window_size, stride=stride)``
(all keywords, the size a ``torch.Size`` slice of the ones image's shape), then the patches, moved
to (batch, channels x window, patches), are folded with the keywords in a dict,
``F.fold(input=..., **fold_kwargs)`` (inside a list comprehension over the real and imaginary
parts for complex patches, in a one-element list otherwise), and each pixel is divided by its
count (a count of zero, a pixel no patch covers, divided by one). Written here in our own words
for real patches of a fixed image size, window and stride given to the module as kornia's
module takes them; no unpadding. The batch varies.
"""

import torch
import torch.nn.functional as F
from torch import nn


class CombineTensorPatches(nn.Module):
    def __init__(self, original_size=(6, 8), window_size=(3, 4), stride=(1, 2)):
        super().__init__()
        self.original_size = original_size
        self.window_size = window_size
        self.stride = stride

    def forward(self, patches):
        if patches.ndim != 5:
            raise ValueError(f"Invalid input shape, we expect BxNxCxHxW. Got: {patches.shape}")
        original_size, window_size, stride = self.original_size, self.window_size, self.stride
        ones_tensor = torch.ones(patches.shape[0], patches.shape[2], original_size[0], original_size[1],
                                 dtype=patches.dtype)
        restored_size = ones_tensor.shape[2:]
        patches = patches.permute(0, 2, 3, 4, 1).flatten(1, 3)
        unfold_ones = F.unfold(ones_tensor, kernel_size=window_size, stride=stride)
        norm_map = F.fold(input=unfold_ones, output_size=restored_size, kernel_size=window_size, stride=stride)
        fold_kwargs = {"output_size": restored_size, "kernel_size": window_size, "stride": stride}
        if patches.is_complex():
            folded = [F.fold(input=part, **fold_kwargs) for part in (patches.real, patches.imag)]
        else:
            folded = [F.fold(input=patches, **fold_kwargs)]
        count = torch.where(norm_map == 0, torch.ones_like(norm_map), norm_map)
        if patches.is_complex():
            return torch.complex(folded[0] / count, folded[1] / count)
        return folded[0] / count


def build() -> nn.Module:
    return CombineTensorPatches()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # 4 x 3 windows of 3 x 4 pixels, strides 1 and 2, over a 6 x 8 image: 12 patches.
    return (torch.randn(2, 12, 3, 3, 4, generator=generator),)


DYNAMIC = {"patches": {0: "batch"}}
