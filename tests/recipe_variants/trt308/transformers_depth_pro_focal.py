"""Metric depth rescaled by the focal length of a predicted field of view in degrees: transformers' DepthPro.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/depth_pro/
image_processing_depth_pro.py, ``DepthProImageProcessor.post_process_depth_estimation`` (lines
84-115): for each image with a target size, ``focal_length = 0.5 * width / torch.tan(0.5 *
torch.deg2rad(fov_value))`` and ``depth = depth * width / focal_length``, the predicted field of
view being in degrees. Written here in our own words as a module over the whole batch at once
(the loop over images and the resize to the target size are left out; the width is the
target width the module is built with).
"""

import torch
from torch import nn


class DepthProFocal(nn.Module):
    def __init__(self, width: int = 640) -> None:
        super().__init__()
        self.width = width

    def forward(self, predicted_depth, field_of_view):
        focal_length = 0.5 * self.width / torch.tan(0.5 * torch.deg2rad(field_of_view))
        return predicted_depth * self.width / focal_length[:, None, None]


def build() -> nn.Module:
    return DepthProFocal()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.rand(2, 6, 8, generator=generator) * 10, torch.rand(2, generator=generator) * 60 + 30


DYNAMIC = {"predicted_depth": {0: "batch", 1: "height", 2: "width"}, "field_of_view": {0: "batch"}}
