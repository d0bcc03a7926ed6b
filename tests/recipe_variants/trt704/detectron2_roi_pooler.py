"""Multi-level RoI pooling into a buffer sized by ``len`` of the boxes: detectron2's ``ROIPooler``.

Reduced from facebookresearch/detectron2 at 04367a2bdf88c31c5134e4245d7b11c7b6ef939c,
detectron2/modeling/poolers.py (``ROIPooler.forward``: ``pooler_fmt_boxes =
convert_boxes_to_pooler_format(box_lists)``, ``level_assignments = assign_boxes_to_levels(...)``,
``num_boxes = len(pooler_fmt_boxes)``, ``output = torch.zeros((num_boxes, num_channels,
output_size, output_size))``, then ``output[inds] = pooler(x[level], pooler_fmt_boxes[inds])`` per
level). Written here in our own words, for one image; ``ROIAlign`` is replaced by a per-box
scaling of the level's pooled map and the box area by its absolute value, to keep the variant free
of compiled ops and of NaN on random boxes.
"""

import torch
from torch import nn


def convert_boxes_to_pooler_format(boxes):
    return torch.cat([torch.zeros_like(boxes[:, :1]), boxes], dim=1)


def assign_boxes_to_levels(boxes, min_level, max_level, canonical_box_size, canonical_level):
    box_sizes = torch.sqrt(((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).abs())
    level_assignments = torch.floor(canonical_level + torch.log2(box_sizes / canonical_box_size + 1e-8))
    level_assignments = torch.clamp(level_assignments, min=min_level, max=max_level)
    return level_assignments.to(torch.int64) - min_level


class BoxScaledPool(nn.Module):
    def forward(self, feature, rois):
        return feature.mean(dim=(2, 3))[rois[:, 0].long()] * rois[:, 3:].mean(dim=1, keepdim=True)


class ROIPooler(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.level_poolers = nn.ModuleList([BoxScaledPool(), BoxScaledPool()])
        self.min_level, self.max_level = 2, 3
        self.canonical_box_size, self.canonical_level = 1.0, 3

    def forward(self, p2, p3, boxes):
        x = [p2, p3]
        pooler_fmt_boxes = convert_boxes_to_pooler_format(boxes)
        level_assignments = assign_boxes_to_levels(
            boxes, self.min_level, self.max_level, self.canonical_box_size, self.canonical_level
        )
        num_boxes = len(pooler_fmt_boxes)
        num_channels = x[0].shape[1]
        output = torch.zeros((num_boxes, num_channels), dtype=x[0].dtype, device=x[0].device)
        for level, pooler in enumerate(self.level_poolers):
            inds = torch.nonzero(level_assignments == level).unbind(1)[0]
            output[inds] = pooler(x[level], pooler_fmt_boxes[inds])
        return output


def build() -> nn.Module:
    return ROIPooler()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(1, 5, 8, 8, generator=generator), torch.randn(1, 5, 4, 4, generator=generator),
            torch.randn(7, 4, generator=generator))


DYNAMIC = {"boxes": {0: "num_boxes"}}
