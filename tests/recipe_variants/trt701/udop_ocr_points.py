"""UDOP's image-text fusion: each token takes the visual patch under its box's centre, except tokens
whose box is all zeros or all ones; the box means are taken in float64, chosen through a local
``dtype`` (float32 only on Apple's MPS, which has no float64).

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/udop/modeling_udop.py:172-207 (``combine_image_text_embeddings``): the patch
under each box centre (``torch.floor(... * sequence_length).long()`` clipped, row times
``sequence_length`` plus column), ``dtype = torch.float32 if bbox.device.type == "mps" else
torch.float64``, ``bbox = bbox.to(dtype)``, ``target_seg = (bbox.mean(-1) == 0.0) | (bbox.mean(-1) ==
1.0)``, the gathered patch embeddings zeroed there and added to the token embeddings. Written here
in our own words; the zeroing is a ``torch.where`` (the original's masked write is TRT202's recipe),
and the patch bookkeeping that follows is left out.
"""

import torch
from torch import nn


class OcrPoints(nn.Module):
    def __init__(self, num_patches: int = 4) -> None:
        super().__init__()
        self.num_patches = num_patches

    def forward(self, image_embeddings: torch.Tensor, inputs_embeds: torch.Tensor, bbox: torch.Tensor) -> torch.Tensor:
        n = self.num_patches
        points_x = torch.clip(torch.floor((bbox[:, :, 0] + bbox[:, :, 2]) / 2.0 * n).long(), 0, n - 1)
        points_y = torch.clip(torch.floor((bbox[:, :, 1] + bbox[:, :, 3]) / 2.0 * n).long(), 0, n - 1) * n
        ocr_points = points_x + points_y
        dtype = torch.float32 if bbox.device.type == "mps" else torch.float64
        bbox = bbox.to(dtype)
        target_seg = (bbox.mean(-1) == 0.0) | (bbox.mean(-1) == 1.0)
        index = ocr_points.unsqueeze(-1).repeat(1, 1, image_embeddings.size(-1))
        repeated = torch.gather(image_embeddings, 1, index)
        repeated = torch.where(target_seg.unsqueeze(-1), torch.zeros_like(repeated), repeated)
        return inputs_embeds + repeated


def build() -> nn.Module:
    return OcrPoints()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    image_embeddings = torch.randn(2, 16, 5, generator=generator)
    inputs_embeds = torch.randn(2, 6, 5, generator=generator)
    corners = torch.rand(2, 6, 2, generator=generator) * 0.5
    bbox = torch.cat([corners, corners + 0.4], dim=-1)
    bbox[0, 0] = 0.0  # a padding token's box
    bbox[1, 2] = 1.0  # a box covering the page
    return image_embeddings, inputs_embeds, bbox


DYNAMIC = {"image_embeddings": {0: "batch"}, "inputs_embeds": {0: "batch", 1: "tokens"},
           "bbox": {0: "batch", 1: "tokens"}}
