"""NumPy on sizes: a Faster R-CNN proposal layer shifts its anchors over the feature map.

Reduced from jwyang/faster-rcnn.pytorch @ f9d984d27b48a067b29792932bcb5321a39c1f09,
lib/model/rpn/proposal_layer.py:79-85 (``np.arange(...) * self._feat_stride``, ``np.meshgrid``
rebinding both names, ``np.vstack`` of ``.ravel()`` copies, ``.transpose()``, then
``torch.from_numpy``), written here in our own words with one base anchor.
"""

import numpy as np
import torch
from torch import nn


class Proposals(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self._feat_stride = 16
        self.register_buffer("_anchors", torch.tensor([[-8.0, -8.0, 8.0, 8.0]]))

    def forward(self, scores):
        feat_height, feat_width = scores.size(2), scores.size(3)
        shift_x = np.arange(0, feat_width) * self._feat_stride
        shift_y = np.arange(0, feat_height) * self._feat_stride
        shift_x, shift_y = np.meshgrid(shift_x, shift_y)
        shifts = torch.from_numpy(np.vstack((shift_x.ravel(), shift_y.ravel(),
                                             shift_x.ravel(), shift_y.ravel())).transpose())
        shifts = shifts.contiguous().type_as(scores).float()
        anchors = self._anchors.view(1, 1, 4) + shifts.view(-1, 1, 4)
        return anchors.view(1, -1, 4) + scores.permute(0, 2, 3, 1).reshape(scores.size(0), -1, 1)


def build() -> nn.Module:
    return Proposals()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 1, 5, 7, generator=generator),)


DYNAMIC = {"scores": {2: "h", 3: "w"}}
