"""Idefics2's vision embeddings give every patch of a padded image a position id on the pretrained grid:
the ids start as ``torch.full(size=(batch_size, max_nb_patches_h * max_nb_patches_w), fill_value=0,
device=...)`` (the keyword form, over several lines, no dtype: eager mode infers int64 from the ``0``),
the real patches' bucketized coordinates replace them with ``torch.where``, and the ids index the position
embedding. The size is a product of floor divisions of the image's traced height and width, so the
TorchScript exporter makes the ``full`` a float ``ConstantOfShape``: the ``where`` joins int64 ids with
float ones and ONNX Runtime refuses the graph.

Reduced from transformers 5.24.0 (the PyPI wheel, github.com/huggingface/transformers),
src/transformers/models/idefics2/modeling_idefics2.py: ``Idefics2VisionEmbeddings.forward`` (lines
102-141; the ``full`` at lines 112-114); Idefics3 and SmolVLM carry the same lines. Written here in our own
words with a small configuration (patches of 2 pixels, a pretrained grid of 4 by 4 patches, width 8); the
per-image patch counts, their fractional coordinates, ``bucketize`` and the ``where`` are kept as they are.
"""

import torch
from torch import nn


class PatchPositionEmbeddings(nn.Module):
    def __init__(self, image_size: int = 8, patch_size: int = 2, width: int = 8) -> None:
        super().__init__()
        self.patch_size = patch_size
        self.patch_embedding = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, padding="valid")
        self.num_patches_per_side = image_size // patch_size
        self.position_embedding = nn.Embedding(self.num_patches_per_side ** 2, width)

    def forward(self, pixel_values, patch_attention_mask):
        batch_size, _, max_im_h, max_im_w = pixel_values.shape
        embeddings = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        max_nb_patches_h, max_nb_patches_w = max_im_h // self.patch_size, max_im_w // self.patch_size
        boundaries = torch.arange(1 / self.num_patches_per_side, 1.0, 1 / self.num_patches_per_side,
                                  device=pixel_values.device)
        position_ids = torch.full(
            size=(batch_size, max_nb_patches_h * max_nb_patches_w), fill_value=0, device=pixel_values.device
        )
        step_h = 1.0 / patch_attention_mask[:, :, 0].sum(dim=1)
        step_w = 1.0 / patch_attention_mask[:, 0, :].sum(dim=1)
        h_indices = torch.arange(patch_attention_mask.size(1), device=position_ids.device, dtype=torch.float32)
        w_indices = torch.arange(patch_attention_mask.size(2), device=position_ids.device, dtype=torch.float32)
        coords_h = torch.clamp(h_indices[None, :] * step_h[:, None], max=(1.0 - 1e-6))
        coords_w = torch.clamp(w_indices[None, :] * step_w[:, None], max=(1.0 - 1e-6))
        bucket_h = torch.bucketize(coords_h, boundaries, right=True)
        bucket_w = torch.bucketize(coords_w, boundaries, right=True)
        pos_ids = (bucket_h[:, :, None] * self.num_patches_per_side + bucket_w[:, None, :]).reshape(batch_size, -1)
        position_ids = torch.where(patch_attention_mask.view(batch_size, -1), pos_ids, position_ids)
        return embeddings + self.position_embedding(position_ids)


def build() -> nn.Module:
    return PatchPositionEmbeddings()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 8, width: int = 6) -> tuple[torch.Tensor, ...]:
    """Images of ``height`` by ``width`` pixels; the second (and every other) image is padded: only its first
    half of patch rows and columns (at least one) are real."""
    pixels = torch.randn(batch, 3, height, width, generator=generator)
    mask = torch.ones(batch, height // 2, width // 2, dtype=torch.bool)
    mask[1::2, max(1, height // 4):, :] = False
    mask[1::2, :, max(1, width // 4):] = False
    return pixels, mask


DYNAMIC = {"pixel_values": {0: "batch", 2: "height", 3: "width"},
           "patch_attention_mask": {0: "batch", 1: "rows", 2: "columns"}}
CALL = "position_ids = torch.full("
