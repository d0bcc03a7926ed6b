"""Idefics2's vision input: padding images (all zeros) told apart by counting zero values.

Reduced from transformers 5.24.0, models/idefics2/modeling_idefics2.py, ``Idefics2Model.
get_image_features`` (lines 804-811): the images of each sample are viewed as one batch
(``pixel_values.view(batch_size * num_images, *pixel_values.shape[2:])``), each image's value count is
``pixel_values.shape[1:].numel()``, and an image is real where the count of its zeros differs from it.
Idefics3, SmolVLM and ModernVBERT carry the same lines. The model then keeps the real images by a boolean
index; here their patch features are weighted by the flag instead (a boolean index is another rule's),
and the features are viewed back per sample. Written here in our own words.
"""

import torch
from torch import nn


class PaddingImages(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 8, 4, stride=4)

    def forward(self, pixel_values):
        batch_size, num_images, num_channels, height, width = pixel_values.shape
        pixel_values = pixel_values.view(batch_size * num_images, *pixel_values.shape[2:])
        nb_values_per_image = pixel_values.shape[1:].numel()
        real_images_inds = (pixel_values == 0.0).sum(dim=(-1, -2, -3)) != nb_values_per_image
        features = self.patch(pixel_values).flatten(2).mean(-1)
        features = features * real_images_inds[:, None].to(features.dtype)
        return features.view(batch_size, num_images, -1)


def build() -> nn.Module:
    return PaddingImages().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    pixel_values = torch.rand(2, 2, 3, 16, 24, generator=generator)
    pixel_values[1, 1] = 0.0  # the second sample's second image is padding
    return (pixel_values,)


DYNAMIC = {"pixel_values": {0: "batch", 3: "height", 4: "width"}}
