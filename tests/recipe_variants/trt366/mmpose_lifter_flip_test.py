"""A 2D-to-3D pose lifter's flip test: each sequence's keypoints mirrored and swapped left for right, then lifted again.

Reduced from open-mmlab/mmpose @ 759b39c13fea6ba094afc1fa932f51dc1b11cbf9,
mmpose/models/pose_estimators/pose_lifter.py:253 (``PoseLifter.predict`` with ``flip_test``:
``torch.stack([flip_coordinates(_input, flip_indices=flip_indices, shift_coords=..., input_size=(1, 1)) for _input
in inputs], dim=0)``, the stack written across several lines) and mmpose/models/utils/tta.py:91
(``flip_coordinates``: asserts on the element's rank and keypoint count, ``x`` mirrored in place, shifted by one
pixel of the input width, then the keypoints reordered by ``flip_indices``), in our own words: a temporal
convolution over the flattened keypoints as the backbone, the two predictions averaged.
"""

import torch
from torch import nn

DYNAMIC = {"inputs": {0: "batch"}}

FLIP_INDICES = [0, 2, 1, 4, 3]


def flip_coordinates(coords, flip_indices, shift_coords, input_size):
    assert coords.ndim == 3
    assert len(flip_indices) == coords.shape[1]
    coords[:, :, 0] = 1.0 - coords[:, :, 0]
    if shift_coords:
        img_width = input_size[0]
        coords[:, :, 0] -= 1.0 / img_width
    coords = coords[:, flip_indices]
    return coords


class FlipTestLifter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Conv1d(10, 15, 3, padding=1)
        self.shift_coords = True

    def extract_feat(self, inputs):
        return self.backbone(inputs.flatten(2).transpose(1, 2))

    def forward(self, inputs):
        _feats = self.extract_feat(inputs)
        _feats_flip = self.extract_feat(
            torch.stack([
                flip_coordinates(
                    _input,
                    flip_indices=FLIP_INDICES,
                    shift_coords=self.shift_coords,
                    input_size=(1, 1)) for _input in inputs
            ],
                dim=0))
        return (_feats + _feats_flip) / 2


def build() -> nn.Module:
    return FlipTestLifter()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 9, 5, 2, generator=generator),)
