"""kornia's CombineTensorPatches on integer patches: overlap counts and sums by scatter-add.

Reduced from kornia 0.9.0 (the pinned wheel), kornia/contrib/extract_patches.py:
``CombineTensorPatches.forward`` (lines 352-373), ``combine_tensor_patches`` (lines 391-509: integer
patches take ``_combine_integer_patches``), ``_patch_target_index`` (lines 512-531: the target pixel
of every patch element, the patches of an ``arange`` image) and ``_combine_integer_patches`` (lines
534-573): the overlap count of each pixel with ``counts = counts.index_add_(0, flat_index,
torch.ones_like(flat_index))`` (line 557), the overlap mean, exact in int64, as
``zeros.index_add(-1, flat_index, q)`` plus ``zeros.index_add(-1, flat_index, values - q * count)``
floor-divided by the count (lines 562-563), moved toward zero where negative. Overlapping windows
send several patch elements to one pixel: the index repeats, and there are more patch elements
than pixels. The bool and uint64 branches and the unpadding are left out (no padding here).
Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _extract_tensor_patchesnd(input, window_sizes, strides):
    dims = range(2, input.dim())
    for dim, patch_size, stride in zip(dims, window_sizes, strides):
        input = input.unfold(dim, patch_size, stride)
    input = input.permute(0, *dims, 1, *(dim + len(dims) for dim in dims)).contiguous()
    return input.flatten(1, len(dims))


def _patch_target_index(patches, original_size, window_size, stride):
    height, width = original_size
    index = torch.arange(height * width, device=patches.device).view(1, 1, height, width)
    return _extract_tensor_patchesnd(index, window_size, stride).flatten()


def _combine_integer_patches(patches, flat_index, original_size):
    height, width = original_size
    B, C = patches.shape[0], patches.shape[2]
    values = patches.to(torch.int64).permute(0, 2, 1, 3, 4).flatten(2)
    zeros = torch.zeros(B, C, height * width, dtype=torch.int64, device=patches.device)
    counts = torch.zeros(height * width, dtype=torch.int64, device=patches.device)
    counts = counts.index_add_(0, flat_index, torch.ones_like(flat_index))
    counts = counts.clamp_min(1)
    count = counts[flat_index]
    q = torch.div(values, count, rounding_mode="trunc")
    sum_r = zeros.index_add(-1, flat_index, values - q * count)
    out = zeros.index_add(-1, flat_index, q) + torch.div(sum_r, counts, rounding_mode="floor")
    out = out + ((out < 0) & (torch.remainder(sum_r, counts) != 0)).to(torch.int64)
    return out.view(B, C, height, width).to(patches.dtype)


class CombineTensorPatches(nn.Module):
    def __init__(self, original_size=(4, 5), window_size=(3, 3), stride=(1, 2)) -> None:
        super().__init__()
        self.original_size = original_size
        self.window_size = window_size
        self.stride = stride

    def forward(self, input):
        flat_index = _patch_target_index(input, self.original_size, self.window_size, self.stride)
        return _combine_integer_patches(input, flat_index, self.original_size)


def build() -> nn.Module:
    return CombineTensorPatches().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Four 3x3 windows over a 4x5 image (strides 1 and 2): 36 patch elements onto 20 pixels.
    return (torch.randint(-1000, 1000, (2, 4, 3, 3, 3), generator=generator),)


DYNAMIC = {"input": {0: "batch", 2: "channels"}}
