"""Hugging Face's SAM processor, box prompts: the boxes are deep-copied and cast to float,
reshaped to corner pairs, each corner's x and y scaled to the resized image by writes through
``[..., k]``, and reshaped back to (N, 4).

Reduced from huggingface/transformers at v5.24.0 (the PyPI release the second zoo unpacks),
src/transformers/models/sam/image_processing_sam.py:662-686 (``_normalize_coordinates`` with
``is_bounding_box=True``: the longest-side scale, ``coords = deepcopy(coords).float()``,
``coords.reshape(-1, 2, 2)``, the two column writes and ``coords.reshape(-1, 4)``; SAM 2's and
SAM 3's processors carry the same function), written here in our own words. There it is a
module-level function the processor calls; here it is a method that ``forward`` calls, with
a fixed target length and original size.
"""

from copy import deepcopy

import torch
from torch import nn


class BoxPrompts(nn.Module):
    def __init__(self, target_size: int = 64, original_size: tuple[int, int] = (30, 50)) -> None:
        super().__init__()
        self.target_size = target_size
        self.original_size = original_size

    def normalize(self, coords: torch.Tensor) -> torch.Tensor:
        old_height, old_width = self.original_size
        scale = self.target_size * 1.0 / max(old_height, old_width)
        new_width = int(old_width * scale + 0.5)
        new_height = int(old_height * scale + 0.5)
        coords = deepcopy(coords).float()
        coords = coords.reshape(-1, 2, 2)
        coords[..., 0] = coords[..., 0] * (new_width / old_width)
        coords[..., 1] = coords[..., 1] * (new_height / old_height)
        return coords.reshape(-1, 4)

    def forward(self, boxes: torch.Tensor) -> torch.Tensor:
        return self.normalize(boxes)


def build() -> nn.Module:
    return BoxPrompts()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, 50, (3, 4), generator=generator),)


DYNAMIC = {"boxes": {0: "boxes"}}
