"""RF-DETR's DINOv2 backbone in transformers: the learned position embeddings (a square grid plus
a class token) resized to the image's patch grid, bicubically and with antialiasing written as
the literal ``antialias=True``, in float32 and cast back to the embeddings' dtype.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
transformers/models/rf_detr/modeling_rf_detr.py, ``interpolate_pos_encoding`` lines 91-131 (the
grid split from the class token, ``height // patch_size`` and ``width // patch_size`` as the new
size, the call at lines 120-127 with ``mode="bicubic"``, ``align_corners=False``,
``antialias=True`` and ``.to(dtype=target_dtype)``, the grid flattened back and the class token
put in front). Written here in our own words: a strided convolution stands in for the patch
embedding and the encoder is left out; so is the early return when the grid already has the
embeddings' size outside tracing (an antialiased resize to the same size is the identity).
"""

import torch
from torch import nn


class RfDetrEmbeddings(nn.Module):
    def __init__(self, dim: int = 8, patch_size: int = 4, grid: int = 6) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.patch_embeddings = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.position_embeddings = nn.Parameter(torch.randn(1, grid * grid + 1, dim))

    def interpolate_pos_encoding(self, embeddings: torch.Tensor, height: int, width: int) -> torch.Tensor:
        num_positions = self.position_embeddings.shape[1] - 1
        class_pos_embed = self.position_embeddings[:, :1]
        patch_pos_embed = self.position_embeddings[:, 1:]
        dim = embeddings.shape[-1]
        new_height = height // self.patch_size
        new_width = width // self.patch_size
        side = int(num_positions**0.5)
        patch_pos_embed = patch_pos_embed.reshape(1, side, side, dim).permute(0, 3, 1, 2)
        target_dtype = patch_pos_embed.dtype
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed.to(torch.float32),
            size=(new_height, new_width),
            mode="bicubic",
            align_corners=False,
            antialias=True,
        ).to(dtype=target_dtype)
        patch_pos_embed = patch_pos_embed.permute(0, 2, 3, 1).view(1, -1, dim)
        return torch.cat((class_pos_embed, patch_pos_embed), dim=1)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        batch, _, height, width = pixel_values.shape
        embeddings = self.patch_embeddings(pixel_values).flatten(2).transpose(1, 2)
        embeddings = torch.cat((self.cls_token.expand(batch, -1, -1), embeddings), dim=1)
        return embeddings + self.interpolate_pos_encoding(embeddings, height, width)


def build() -> nn.Module:
    return RfDetrEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 3, 20, 16, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
