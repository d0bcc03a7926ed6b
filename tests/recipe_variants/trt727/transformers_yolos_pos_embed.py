"""YOLOS's mid position embeddings in transformers: the patch part of a learned embedding, laid
out on the pre-training grid, resized bicubically to the image's patch grid, then joined again
with the class and detection-token embeddings.

Reduced from transformers 5.24.0 (the PyPI wheel the second zoo unpacks),
src/transformers/models/yolos/modeling_yolos.py, ``InterpolateInitialPositionEmbeddings.forward``
lines 123-144 (the class, patch and detection slices, ``view`` to the training grid,
``nn.functional.interpolate(patch_pos_embed, size=(new_patch_height, new_patch_width),
mode="bicubic", align_corners=False)``, ``flatten(2).transpose(1, 2)`` and ``torch.cat``).
Written here in our own words: the image size comes from the pixels' shape (transformers passes
it as ``img_size``), and a patch convolution with the embeddings added makes the model's output.
"""

import torch
from torch import nn


class YolosEmbeddings(nn.Module):
    def __init__(self, dim: int = 4, patch_size: int = 4, grid: tuple[int, int] = (3, 4), det_tokens: int = 2) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.grid = grid
        self.num_detection_tokens = det_tokens
        self.patch = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)
        self.position_embeddings = nn.Parameter(torch.randn(1, 1 + grid[0] * grid[1] + det_tokens, dim))

    def interpolate(self, pos_embed: torch.Tensor, img_size) -> torch.Tensor:
        cls_pos_embed = pos_embed[:, 0, :][:, None]
        det_pos_embed = pos_embed[:, -self.num_detection_tokens :, :]
        patch_pos_embed = pos_embed[:, 1 : -self.num_detection_tokens, :].transpose(1, 2)
        batch_size, hidden_size, seq_len = patch_pos_embed.shape
        patch_pos_embed = patch_pos_embed.view(batch_size, hidden_size, self.grid[0], self.grid[1])
        height, width = img_size
        new_patch_height, new_patch_width = height // self.patch_size, width // self.patch_size
        patch_pos_embed = nn.functional.interpolate(
            patch_pos_embed, size=(new_patch_height, new_patch_width), mode="bicubic", align_corners=False
        )
        patch_pos_embed = patch_pos_embed.flatten(2).transpose(1, 2)
        return torch.cat((cls_pos_embed, patch_pos_embed, det_pos_embed), dim=1)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        pos = self.interpolate(self.position_embeddings, pixel_values.shape[-2:])
        tokens = self.patch(pixel_values).flatten(2).transpose(1, 2)
        return tokens + pos[:, 1 : -self.num_detection_tokens]


def build() -> nn.Module:
    return YolosEmbeddings()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 20, 24, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
