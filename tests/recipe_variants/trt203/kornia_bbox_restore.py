"""kornia's box transform: the corners of (x1, y1, x2, y2) boxes are moved by a per-image
matrix, and since a flip can swap them, a clone of the result gets each coordinate back as the
min or max over a pair of columns picked with an index list
(``restored[..., 0] = torch.min(moved[..., [0, 2]], dim=-1)[0]`` and three more).

Reduced from kornia/kornia at tag v0.9.0 (the PyPI release the second zoo unpacks),
kornia/geometry/bbox.py:622-680 (``transform_bbox``: the corners reshaped to points by a count
named from the shape,
``transform_points``, ``view_as`` the boxes, ``restored_boxes = transformed_boxes.clone()`` and
the four min/max writes), written here in our own words; the transform is affine (the last row
of the matrix is not divided by), and the ``xywh`` mode is left out.
"""

import torch
from torch import nn


class MoveBoxes(nn.Module):
    def forward(self, trans_mat: torch.Tensor, boxes: torch.Tensor) -> torch.Tensor:
        points = boxes.reshape(boxes.shape[0], boxes.shape[1] * 2, 2)  # no -1: the batch may be empty
        moved = points @ trans_mat[:, :2, :2].transpose(1, 2) + trans_mat[:, None, :2, 2]
        transformed_boxes = moved.view_as(boxes)
        restored_boxes = transformed_boxes.clone()
        restored_boxes[..., 0] = torch.min(transformed_boxes[..., [0, 2]], dim=-1)[0]
        restored_boxes[..., 1] = torch.min(transformed_boxes[..., [1, 3]], dim=-1)[0]
        restored_boxes[..., 2] = torch.max(transformed_boxes[..., [0, 2]], dim=-1)[0]
        restored_boxes[..., 3] = torch.max(transformed_boxes[..., [1, 3]], dim=-1)[0]
        return restored_boxes


def build() -> nn.Module:
    return MoveBoxes()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    flip = torch.tensor([[[-1.0, 0.0, 20.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
    turn = torch.randn(1, 3, 3, generator=generator)
    return torch.cat([flip, turn]), torch.rand(2, 3, 4, generator=generator) * 20


DYNAMIC = {"trans_mat": {0: "batch"}, "boxes": {0: "batch", 1: "boxes"}}
