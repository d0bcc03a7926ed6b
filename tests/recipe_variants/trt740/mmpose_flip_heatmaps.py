"""MMPose 1.x (dev-1.x, summer 2022) does flip test-time augmentation in its heatmap heads: the head runs on the
features of the image and of its mirror image, ``flip_heatmaps`` (mmpose/models/utils/tta.py) reorders the
mirrored heatmaps by ``flip_indices``, flips them back along the width and, with ``shift_heatmap``, moves
them one column right to line up with the unflipped ones, then the head averages the two. The shift is the
Ellipsis slice assignment ``heatmaps[..., 1:] = heatmaps[..., :-1]``, whose source overlaps its target in the
same tensor. Eager PyTorch copies in kernel order and smears the left column across the row; the ONNX
exporters read the source as it was. MMPose itself later changed the line to
``heatmaps[..., 1:] = heatmaps[..., :-1].clone()`` with the comment "clone data to avoid unexpected in-place
operation when using CPU" (open-mmlab/mmpose 34142a922599a83c5172f670b11a669257399858, PR #1657).

Reduced from open-mmlab/mmpose @ 299931c113cf7c94f16619c4328b87d74f44c19e (the parent of that fix),
mmpose/models/utils/tta.py lines 7-48 (``flip_heatmaps``), as mmpose/models/heads/heatmap_heads/heatmap_head.py
lines 280-291 (``HeatmapHead.predict`` with ``flip_test``) calls it. What is reduced: the backbone is one
convolution and the head one more, the two feature sets come from the image and its mirror in one forward,
only the ``'heatmap'`` flip mode is kept (the ``'udp_combined'`` branch and the argument checks are left out),
and the data samples and decoding are dropped. Written here in our own words.
"""

from typing import List

import torch
from torch import Tensor, nn


def flip_heatmaps(heatmaps: Tensor, flip_indices: List[int], shift_heatmap: bool = True) -> Tensor:
    heatmaps = heatmaps[:, flip_indices].flip(-1)
    if shift_heatmap:
        heatmaps[..., 1:] = heatmaps[..., :-1]
    return heatmaps


class TinyHeatmapHeadFlipTest(nn.Module):
    flip_indices = [1, 0, 2, 4, 3]

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.head = nn.Conv2d(8, len(self.flip_indices), 1)

    def forward(self, inputs: Tensor) -> Tensor:
        feats = self.backbone(inputs).relu()
        feats_flip = self.backbone(inputs.flip(-1)).relu()
        batch_heatmaps = self.head(feats)
        batch_heatmaps_flip = flip_heatmaps(self.head(feats_flip), self.flip_indices, shift_heatmap=True)
        return (batch_heatmaps + batch_heatmaps_flip) * 0.5


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyHeatmapHeadFlipTest().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    return (torch.rand(batch, 3, height, width, generator=generator),)


DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
CALL = "heatmaps[..., 1:] = heatmaps[..., :-1]"
