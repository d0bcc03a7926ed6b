"""DINOv3's rotary position embedding: the angles of the patch centres tiled twice along the last axis.

Reduced from transformers 5.24.0, models/dinov3_vit/modeling_dinov3_vit.py:
``get_patches_center_coordinates`` (lines 96-121) and ``DINOv3ViTRopePositionEmbedding.forward``
(lines 174-206). The embedding counts the patches from the image's height and width, places the
patch centres on [-1, 1] with ``arange(0.5, n)`` per axis and ``meshgrid``, multiplies them by
the inverse frequencies (a non-persistent buffer of ``head_dim / 4`` values), flattens the two
coordinate axes into one, then doubles it with ``angles = angles.tile(2)`` (the method, one int
count, a 2-D tensor) before ``cos`` and ``sin``. Written here in our own words: the training-time
coordinate augmentation is left out (the model is in eval mode), and a patch projection and one
head's rotation of the tokens (``rotate_half``) use the embedding so that the model has an output.
"""

import math

import torch
import torch.nn as nn


def patch_centres(rows: int, cols: int, dtype: torch.dtype) -> torch.Tensor:
    ys = torch.arange(0.5, rows, dtype=dtype) / rows
    xs = torch.arange(0.5, cols, dtype=dtype) / cols
    grid = torch.stack(torch.meshgrid(ys, xs, indexing="ij"), dim=-1).flatten(0, 1)
    return 2.0 * grid - 1.0


class RopePositionEmbedding(nn.Module):
    def __init__(self, head_dim: int = 16, patch: int = 4, theta: float = 100.0) -> None:
        super().__init__()
        self.patch = patch
        self.register_buffer("inv_freq", 1 / theta ** torch.arange(0, 1, 4 / head_dim), persistent=False)

    def forward(self, pixel_values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, _, height, width = pixel_values.shape
        centres = patch_centres(height // self.patch, width // self.patch, torch.float32)
        angles = 2 * math.pi * centres[:, :, None] * self.inv_freq[None, None, :]
        angles = angles.flatten(1, 2)
        angles = angles.tile(2)
        return torch.cos(angles).to(pixel_values.dtype), torch.sin(angles).to(pixel_values.dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class RotaryPatches(nn.Module):
    def __init__(self, head_dim: int = 16, patch: int = 4) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, head_dim, patch, patch)
        self.rope = RopePositionEmbedding(head_dim, patch)

    def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
        tokens = self.proj(pixel_values).flatten(2).transpose(1, 2)
        cos, sin = self.rope(pixel_values)
        return tokens * cos + rotate_half(tokens) * sin


def build() -> nn.Module:
    return RotaryPatches().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, 24, generator=generator),)


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"}}
