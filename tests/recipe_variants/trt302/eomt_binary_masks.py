"""A segmentation map split into one binary mask per label present, labels by ``torch.unique``: EoMT.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/eomt/image_processing_eomt.py,
``convert_segmentation_map_to_binary_masks_fast`` (lines 58-87; adapted there from MaskFormer's):
with an ignore index, background 0 becomes the ignore index and every other label moves down by one,
``all_labels = torch.unique(segmentation_map)`` (line 66), the ignore label is dropped with a
boolean index, and a mask is made per label. Written here in our own words; the masks are one
broadcast comparison instead of the original's list comprehension over the labels (a loop over a
tensor, TRT406's finding, outside this recipe), and the instance-to-class dictionary is left out.
"""

import torch
from torch import nn


class BinaryMasks(nn.Module):
    def __init__(self, ignore_index: int = 255) -> None:
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, segmentation_map):
        segmentation_map = torch.where(segmentation_map == 0, self.ignore_index, segmentation_map - 1)
        all_labels = torch.unique(segmentation_map)
        all_labels = all_labels[all_labels != self.ignore_index]
        binary_masks = segmentation_map[None] == all_labels[:, None, None]
        return binary_masks.float()


def build() -> nn.Module:
    return BinaryMasks()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 4, (5, 6), generator=generator),)


DYNAMIC = {"segmentation_map": {0: "height", 1: "width"}}
