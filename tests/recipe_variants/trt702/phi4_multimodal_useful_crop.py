"""Phi-4 multimodal's image embedding: the sub-image features cut to the crop's useful rows and
columns, counted with ``int(mask.sum().item())``, and a learned separator column repeated once per
useful row.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/phi4_multimodal/modeling_phi4_multimodal.py:543-556
(``Phi4MultimodalImageEmbedding.forward``, the branch with ``image_attention_mask``):
``useful_height = int(reshaped_image_attention_mask[0, :, 0].sum().item())`` and the same for the
width over the first row, ``sub_img[:, :useful_height, :useful_width]``,
``self.sub_img_feature_extensor.repeat(1, useful_height, 1, 1)`` concatenated on the width axis and
flattened to tokens. Written here in our own words for one image whose crops are already merged
into one feature grid and mask (the per-image loop, the crop reshapes and the projection MLP left
out; a linear layer stands in for the projection).
"""

import torch
from torch import nn


class UsefulCrop(nn.Module):
    def __init__(self, image_dim_out: int = 4) -> None:
        super().__init__()
        self.image_dim_out = image_dim_out
        self.sub_img_feature_extensor = nn.Parameter(torch.randn(1, 1, 1, image_dim_out))
        self.img_projection = nn.Linear(image_dim_out, image_dim_out)

    def forward(self, sub_img: torch.Tensor, reshaped_image_attention_mask: torch.Tensor) -> torch.Tensor:
        useful_height = int(reshaped_image_attention_mask[0, :, 0].sum().item())
        useful_width = int(reshaped_image_attention_mask[0, 0, :].sum().item())
        sub_img = sub_img[:, :useful_height, :useful_width]
        temporary_extensor = self.sub_img_feature_extensor.repeat(1, useful_height, 1, 1)
        sub_img = torch.cat([sub_img, temporary_extensor], dim=2).reshape(1, -1, self.image_dim_out)
        return self.img_projection(sub_img)


def build() -> nn.Module:
    return UsefulCrop()


def mask_of(height: int, width: int, useful_height: int, useful_width: int) -> torch.Tensor:
    """The crop's attention mask: ones on the useful rows and columns (float, as the processor gives)."""
    rows = (torch.arange(height) < useful_height)[:, None]
    cols = (torch.arange(width) < useful_width)[None, :]
    return (rows & cols).float()[None]


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(1, 6, 5, 4, generator=generator), mask_of(6, 5, 4, 3)


DYNAMIC = {"sub_img": {1: "height", 2: "width"}, "reshaped_image_attention_mask": {1: "height", 2: "width"}}
