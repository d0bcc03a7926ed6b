"""SIFT descriptors: the pyramid levels one octave's keypoints use, by ``torch.unique(..., sorted=True)``.

Reduced from kornia 0.9.0 (the PyPI wheel), kornia/feature/sift/scale_space.py (the descriptor
loop over octaves, lines 755-760): the keypoints of the octave are selected with a boolean mask,
``used_levels = torch.unique(level_indices[octave_selected], sorted=True)`` (line 760), and only
those levels' images are gathered (``_gradient_atlas``, lines 578-595:
``octave_images[:, 0].index_select(1, used_levels)``) and differenced. Written here in our own
words for one octave, the gradient as forward differences of the gathered levels; the
``if not octave_selected.any(): continue`` skip is left out (with no keypoint the unique is empty
and so is the atlas).
"""

import torch
from torch import nn


class UsedLevelsAtlas(nn.Module):
    def __init__(self, octave: int = 1) -> None:
        super().__init__()
        self.octave = octave

    def forward(self, octave_images, level_indices, octave_indices):
        octave_selected = octave_indices == self.octave
        used_levels = torch.unique(level_indices[octave_selected], sorted=True)
        images = octave_images[:, 0].index_select(1, used_levels)
        gx = images[..., :, 1:] - images[..., :, :-1]
        return gx


def build() -> nn.Module:
    return UsedLevelsAtlas()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 1, 5, 4, 6, generator=generator), torch.randint(0, 5, (1, 8), generator=generator),
            torch.randint(0, 3, (1, 8), generator=generator))


DYNAMIC = {"octave_images": {0: "batch", 3: "height", 4: "width"}, "level_indices": {0: "batch", 1: "keypoints"},
           "octave_indices": {0: "batch", 1: "keypoints"}}
