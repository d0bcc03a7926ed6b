"""kornia's ALIKED keypoint detector: score-map maxima near each image's own border removed, the
border read out of a per-image size tensor with ``.item()`` inside a slice bound.

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/feature/aliked/aliked.py:244-283 (``DKD.forward``): the strict local maxima of the
score map, the first ``radius`` rows and columns dropped, then, when the caller passes each image's
``(width, height)``, a loop over the batch that unpacks ``image_size[i].long()`` and clears the rows
from ``ih.item() - self.radius`` and the columns from ``iw.item() - self.radius`` on. Written here in
our own words; the non-maximum suppression is a max-pool comparison, ``image_size`` is always given,
and the output keeps the scores of the surviving maxima (top-k and the sub-pixel refinement are left
out). The loop runs over a batch fixed by the example (the variant's dynamic axes are the map's
height and width); the sizes inside ``image_size`` are values, and those the export must follow.
"""

import torch
import torch.nn.functional as F
from torch import nn


class AlikedBorder(nn.Module):
    def __init__(self, radius: int = 2) -> None:
        super().__init__()
        self.radius = radius
        self.kernel_size = 2 * radius + 1

    def forward(self, scores_map: torch.Tensor, image_size: torch.Tensor) -> torch.Tensor:
        b = scores_map.shape[0]
        pooled = F.max_pool2d(scores_map, self.kernel_size, stride=1, padding=self.radius)
        is_max = scores_map == pooled
        is_max[:, :, : self.radius, :] = False
        is_max[:, :, :, : self.radius] = False
        for i in range(b):
            iw, ih = image_size[i].long()
            is_max[i, :, ih.item() - self.radius :, :] = False
            is_max[i, :, :, iw.item() - self.radius :] = False
        return torch.where(is_max, scores_map, torch.zeros_like(scores_map))


def build() -> nn.Module:
    return AlikedBorder()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    scores = torch.rand(2, 1, 12, 14, generator=generator)
    image_size = torch.tensor([[14.0, 12.0], [9.0, 7.0]])
    return scores, image_size


DYNAMIC = {"scores_map": {2: "height", 3: "width"}}
