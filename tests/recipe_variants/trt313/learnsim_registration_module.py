"""learnsim's registration module: a moving image resampled at a transformation given as a grid.

Reduced from dgrzech/learnsim at commit 00f2d4669367f038746ea4c6f126cbf0a75c5ed3,
utils/registration.py, ``RegistrationModule.forward`` with ``is_im``/``is_mask``/``is_seg``
(lines 17-39): the transformation ``(N, 3, D, H, W)`` is already in grid_sample's normalized
coordinates; its vectors are moved last with ``permute([0, 2, 3, 4, 1])`` on a line of its own,
then a mask or segmentation is warped as float with ``mode='nearest'`` and cast back, and an image
with ``mode='bilinear'``, both with ``padding_mode='border'`` and ``align_corners=True``; the
branch is chosen by the tensor's type string. Written here in our own words.
"""

import torch.nn.functional as F
from torch import nn


class RegistrationModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.im_types = ["torch.FloatTensor"]
        self.mask_types = ["torch.BoolTensor"]
        self.seg_types = ["torch.LongTensor"]

    def forward(self, im_or_seg_moving, transformation):
        grid = transformation.permute([0, 2, 3, 4, 1])
        if self.is_mask(im_or_seg_moving) or self.is_seg(im_or_seg_moving):
            as_float = im_or_seg_moving.float()
            warped = F.grid_sample(as_float, grid, mode="nearest", padding_mode="border", align_corners=True)
            return warped.bool() if self.is_mask(im_or_seg_moving) else warped.long()
        if self.is_im(im_or_seg_moving):
            return F.grid_sample(im_or_seg_moving, grid, mode="bilinear", padding_mode="border", align_corners=True)
        raise NotImplementedError

    def is_im(self, tensor):
        return tensor.type() in self.im_types

    def is_mask(self, tensor):
        return tensor.type() in self.mask_types

    def is_seg(self, tensor):
        return tensor.type() in self.seg_types


def build() -> nn.Module:
    return RegistrationModule().eval()


def inputs(generator):
    import torch

    return (torch.randn(2, 1, 5, 4, 6, generator=generator),
            torch.rand(2, 3, 5, 4, 6, generator=generator) * 2.4 - 1.2)


DYNAMIC = {"im_or_seg_moving": {0: "batch", 2: "depth", 3: "height", 4: "width"},
           "transformation": {0: "batch", 2: "depth", 3: "height", 4: "width"}}
